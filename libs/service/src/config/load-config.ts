import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { isSecret } from './secret.decorator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment into `configClass`, listing every bad variable at once. */
export function loadConfig<T extends object>(
  configClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const known = Object.fromEntries(
    Object.entries(env).filter(
      ([key, value]) => key.startsWith('CAREEN_') && value !== undefined && value !== '',
    ),
  );
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
