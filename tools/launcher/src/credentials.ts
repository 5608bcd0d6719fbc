/**
 * Local secrets generated on the first start and reused afterwards, kept in the state
 * folder readable by its owner only.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { LauncherError } from './launcher-error';

export interface LocalCredentials {
  postgresPassword: string;
  rootPassword: string;
  /** True when CAREEN_ROOT_PASSWORD supplied the hub admin password. */
  rootPasswordFromEnv: boolean;
  /** The demo org's admin. */
  demoPassword: string;
}

interface StoredCredentials {
  postgresPassword?: string;
  rootPassword?: string;
  demoPassword?: string;
}

export function loadOrCreateCredentials(file: string, env: NodeJS.ProcessEnv): LocalCredentials {
  const stored = readStored(file);
  const next: StoredCredentials = { ...stored };
  next.postgresPassword ??= generatePassword();
  next.demoPassword ??= generatePassword();
  const rootFromEnv = env.CAREEN_ROOT_PASSWORD;
  if (!rootFromEnv) next.rootPassword ??= generatePassword();
  if (
    next.postgresPassword !== stored.postgresPassword ||
    next.rootPassword !== stored.rootPassword ||
    next.demoPassword !== stored.demoPassword
  ) {
    writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return {
    postgresPassword: next.postgresPassword,
    rootPassword: rootFromEnv || (next.rootPassword as string),
    rootPasswordFromEnv: Boolean(rootFromEnv),
    demoPassword: next.demoPassword,
  };
}

function readStored(file: string): StoredCredentials {
  if (!existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not a JSON object');
    const { postgresPassword, rootPassword, demoPassword } = parsed as Record<string, unknown>;
    return {
      postgresPassword: typeof postgresPassword === 'string' ? postgresPassword : undefined,
      rootPassword: typeof rootPassword === 'string' ? rootPassword : undefined,
      demoPassword: typeof demoPassword === 'string' ? demoPassword : undefined,
    };
  } catch (error) {
    throw new LauncherError(
      `${file} cannot be read (${(error as Error).message}). Fix it, or start over with "npm start -- --reset" ` +
        '(this deletes the local database).',
    );
  }
}

function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
