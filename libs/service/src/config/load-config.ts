import { readFileSync } from 'node:fs';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { isSecret } from './secret.decorator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the environment into `configClass`, listing every bad variable at once.
 * A variable may instead name a file holding its value, as `<name>_FILE` (a mounted secret).
 */
export function loadConfig<T extends object>(
  configClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const given = Object.entries(env).filter(
    ([key, value]) => key.startsWith('CAREEN_') && value !== undefined && value !== '',
  ) as [string, string][];
  const fromFiles = given
    .filter(([key]) => key.endsWith('_FILE') && env[key.slice(0, -'_FILE'.length)] === undefined)
    .map(([key, file]) => [key.slice(0, -'_FILE'.length), readValueFile(key, file)]);
  const known = Object.fromEntries([...given.filter(([key]) => !key.endsWith('_FILE')), ...fromFiles]);
  const config = plainToInstance(configClass, known, { exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map((error) => {
        const shown = isSecret(config, error.property) ? '(secret)' : JSON.stringify(error.value);
        const why = Object.values(error.constraints ?? {}).join(', ');
        return `${error.property}${error.value === undefined ? ' is missing' : `=${shown}`}: ${why}`;
      }),
    );
  }
  return config;
}

function readValueFile(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError([`${variable}=${JSON.stringify(file)}: ${(error as Error).message}`]);
  }
}
