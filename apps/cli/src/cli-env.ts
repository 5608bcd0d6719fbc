/**
 * Every environment variable `careen` reads, described once. Nothing else in the CLI looks at
 * the environment: commands get a CliEnv.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface CliEnv {
  /** CAREEN_CONFIG_DIR: where config.json (the stored login) lives; default ~/.config/careen. */
  configDir: string;
  /** CAREEN_EXCHANGE_URL: the exchange to talk to, unless --exchange says otherwise. */
  exchangeUrl?: string;
  /** CAREEN_AGBOT_URL: the agbot that `careen deploycheck` asks, unless --agbot-url says otherwise. */
  agbotUrl?: string;
  /** CAREEN_MAINTENANCE_URL: the maintenance service `careen maintenance` talks to, unless --maintenance-url says otherwise. */
  maintenanceUrl?: string;
  /** CAREEN_ORCHESTRATOR_URL: the deployment orchestrator `careen strategy|rollout|upgrade` talk to, unless --orchestrator-url says otherwise. */
  orchestratorUrl?: string;
  /** CAREEN_NOTIFIER_URL: the notifier `careen subscription` and `deliveries` talk to, unless --notifier-url says otherwise. */
  notifierUrl?: string;
  /** CAREEN_ORG: org of the CAREEN_USER credentials, default org of commands and of login. */
  org?: string;
  /** CAREEN_USER: with CAREEN_PASSWORD, Basic credentials used instead of a stored login; alone, the default user of login. */
  user?: string;
  /** CAREEN_PASSWORD (secret): password of CAREEN_USER, and the password `careen login` uses. */
  password?: string;
  /** CAREEN_TOKEN (secret): a bearer token used instead of any other credentials. */
  token?: string;
  /** CAREEN_API_KEY (secret): a service account's key, used instead of a login (after CAREEN_TOKEN). */
  apiKey?: string;
  /** CAREEN_NEW_PASSWORD (secret): password given to the user that `careen user add` creates. */
  newPassword?: string;
  /** CAREEN_DEBUG=1: print the stack of unexpected failures. */
  debug: boolean;
}

/** Empty values count as unset, so `CAREEN_TOKEN= careen …` switches a variable off. */
function value(env: Record<string, string | undefined>, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

export function readCliEnv(env: Record<string, string | undefined>): CliEnv {
  return {
    configDir: value(env, 'CAREEN_CONFIG_DIR') ?? join(value(env, 'HOME') ?? homedir(), '.config', 'careen'),
    exchangeUrl: value(env, 'CAREEN_EXCHANGE_URL'),
    agbotUrl: value(env, 'CAREEN_AGBOT_URL'),
    maintenanceUrl: value(env, 'CAREEN_MAINTENANCE_URL'),
    notifierUrl: value(env, 'CAREEN_NOTIFIER_URL'),
    orchestratorUrl: value(env, 'CAREEN_ORCHESTRATOR_URL'),
    org: value(env, 'CAREEN_ORG'),
    user: value(env, 'CAREEN_USER'),
    password: value(env, 'CAREEN_PASSWORD'),
    token: value(env, 'CAREEN_TOKEN'),
    apiKey: value(env, 'CAREEN_API_KEY'),
    newPassword: value(env, 'CAREEN_NEW_PASSWORD'),
    debug: ['1', 'true', 'yes'].includes((value(env, 'CAREEN_DEBUG') ?? '').toLowerCase()),
  };
}
