/**
 * The environment `npm start` gives each hub service: its inherited one without the launcher's
 * own variables, the local Postgres and NATS, and what each service's features need.
 */
import { type HubService } from './hub-services';
import { type StoredNatsAuth } from './nats-auth';

/** Variables of the launcher itself that the services must not inherit. */
const LAUNCHER_ONLY_ENV = [
  'CAREEN_LAUNCHER_OWN_GROUP',
  'CAREEN_HOME',
  'CAREEN_PG_PORT',
  'CAREEN_NATS_PORT',
  'CAREEN_DEMO_NODES',
  'CAREEN_DEMO_GROUPS',
  'CAREEN_DEMO_INSTALL_SECONDS',
];

export interface LocalHub {
  databaseUrl?: string;
  natsUrl?: string;
  /** Replicas of the services' streams: 3 on a cluster. */
  natsStreamReplicas?: number;
  /** The bus's JWT authorization, and the services' creds file for it. */
  natsAuth?: StoredNatsAuth;
  rootPassword: string;
  exchangeUrl: string;
  /** The agbot's local URL, when it runs. */
  agbotUrl?: string;
  logLevel: string;
  otelEndpoint?: string;
  /** The demo fleet's org, whose HA groups FleetLock clients name. */
  fleetLockOrg?: string;
}

export function serviceEnv(
  service: HubService,
  port: number,
  hub: LocalHub,
  inherited: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...inherited };
  for (const name of LAUNCHER_ONLY_ENV) delete env[name];
  Object.assign(env, {
    CAREEN_DATABASE_URL: hub.databaseUrl,
    CAREEN_NATS_URL: hub.natsUrl,
    CAREEN_NATS_STREAM_REPLICAS: hub.natsStreamReplicas && String(hub.natsStreamReplicas),
    CAREEN_NATS_CREDS: hub.natsAuth?.credsFile,
    CAREEN_LOG_LEVEL: hub.logLevel,
    [service.portEnv]: String(port),
  });
  if (hub.otelEndpoint) env.CAREEN_OTEL_ENDPOINT = hub.otelEndpoint;
  if (service.name === 'exchange') {
    env.CAREEN_ROOT_PASSWORD = hub.rootPassword;
    // Service accounts' bus users are of the services' account, signed with its signing key.
    env.CAREEN_EXCHANGE_NATS_ACCOUNT = hub.natsAuth?.account.publicKey;
    env.CAREEN_EXCHANGE_NATS_SIGNING_KEY = hub.natsAuth?.signingKeySeed;
    // It revokes them by re-signing the account, pushed as a system user limited to it.
    env.CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY = hub.natsAuth?.operatorSigningKeySeed;
    env.CAREEN_EXCHANGE_NATS_SYSTEM_CREDS = hub.natsAuth?.systemCredsFile;
  } else {
    delete env.CAREEN_ROOT_PASSWORD;
    env.CAREEN_EXCHANGE_URL = hub.exchangeUrl;
  }
  // Locally the other services sign in to the exchange as the hub admin; a deployment gives
  // each a user of its own.
  if (service.name === 'agbot') {
    env.CAREEN_AGBOT_EXCHANGE_PASSWORD = hub.rootPassword;
    // Zincati-style clients of the demo's nodes take reboot slots from the demo's HA groups.
    if (hub.fleetLockOrg) env.CAREEN_FLEETLOCK_ORG = hub.fleetLockOrg;
  }
  if (service.name === 'notifier') {
    env.CAREEN_NOTIFIER_EXCHANGE_PASSWORD = hub.rootPassword;
    // NATS subscribers get users of the services' account, signed with its signing key.
    env.CAREEN_NOTIFIER_NATS_ACCOUNT = hub.natsAuth?.account.publicKey;
    env.CAREEN_NOTIFIER_NATS_SIGNING_KEY = hub.natsAuth?.signingKeySeed;
    // Webhook receivers on the developer's own machine work out of the box.
    env.CAREEN_NOTIFIER_ALLOWED_NETWORKS = '127.0.0.0/8,::1/128';
  }
  if (service.name === 'deployment-orchestrator') {
    env.CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD = hub.rootPassword;
    if (hub.agbotUrl) env.CAREEN_AGBOT_URL = hub.agbotUrl;
  }
  if (service.name === 'maintenance-session') {
    env.CAREEN_MAINTENANCE_EXCHANGE_PASSWORD = hub.rootPassword;
    if (hub.agbotUrl) env.CAREEN_AGBOT_URL = hub.agbotUrl;
  }
  return env;
}
