/**
 * The CLI's one file of state, `config.json` in the config directory: the exchange last logged
 * in to, who, the access token and the refresh token that renews it. It holds secrets, so it is
 * written with mode 0600 and replaced atomically (a crash never leaves half a file, and another
 * `careen` renewing the login at the same time reads the old file or the new); it must never
 * store a password.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../cli-errors';

export interface StoredConfig {
  exchangeUrl?: string;
  org?: string;
  username?: string;
  accessToken?: string;
  /** When the access token expires; RFC 3339 UTC. */
  expiresAt?: string;
  /** Renews the access token, once; each renewal stores the next. */
  refreshToken?: string;
  /** When the login ends and the refresh token with it; RFC 3339 UTC. */
  refreshExpiresAt?: string;
}

const FIELDS = [
  'exchangeUrl',
  'org',
  'username',
  'accessToken',
  'expiresAt',
  'refreshToken',
  'refreshExpiresAt',
] as const;

export const CONFIG_FILE = 'config.json';

export class ConfigStore {
  constructor(readonly dir: string) {}

  get path(): string {
    return join(this.dir, CONFIG_FILE);
  }

  /** The stored config; empty when there is none yet. */
  async load(): Promise<StoredConfig> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CliError(`cannot read ${this.path}: ${(error as Error).message}`);
    }
    return parseConfig(text, this.path);
  }

  async save(config: StoredConfig): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temporary = join(this.dir, `.${CONFIG_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(pick(config), null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw new CliError(`cannot write ${this.path}: ${(error as Error).message}`);
    }
  }
}

/** Only the known fields, so nothing unexpected is ever persisted. */
function pick(config: StoredConfig): StoredConfig {
  const kept: StoredConfig = {};
  for (const field of FIELDS) {
    if (config[field] !== undefined) kept[field] = config[field];
  }
  return kept;
}

export function parseConfig(text: string, path: string): StoredConfig {
  const damaged = (why: string) =>
    new CliError(`${path} is damaged (${why}); delete it and run "careen login"`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw damaged('not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw damaged('not a JSON object');
  const record = parsed as Record<string, unknown>;
  for (const field of FIELDS) {
    if (record[field] !== undefined && typeof record[field] !== 'string')
      throw damaged(`${field} is not a string`);
  }
  return pick(record as StoredConfig);
}
