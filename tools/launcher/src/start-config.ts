/** What `npm start` runs with, read once from the command line and the environment. */
import { HUB_SERVICES, installedHubServices, type HubService } from './hub-services';
import { LauncherError } from './launcher-error';
import { portFromEnv, type PortClaim } from './ports';
import { stateFolder, type StateFolder } from './state-folder';

export const PG_PORT_ENV = 'CAREEN_PG_PORT';
export const NATS_PORT_ENV = 'CAREEN_NATS_PORT';

export interface StartConfig {
  reset: boolean;
  help: boolean;
  state: StateFolder;
  pgPort: number;
  natsPort: number;
  services: { service: HubService; port: number }[];
  /** The exchange's port, which the other services call. */
  exchangePort: number;
  logLevel: string;
  otelEndpoint?: string;
}

const usageRow = (name: string, text: string) => `  ${name.padEnd(38)}${text}`;

export const START_USAGE = [
  'usage: npm start [-- --reset]',
  '',
  'Runs Postgres, a JetStream nats-server and every hub service on this machine.',
  '  --reset   delete the local state (database, NATS data, logs, credentials) first',
  '',
  'Environment:',
  usageRow('CAREEN_HOME', 'state folder (default .careen/ in the repository)'),
  usageRow(PG_PORT_ENV, 'embedded Postgres port (55432)'),
  usageRow(NATS_PORT_ENV, 'nats-server port (54222)'),
  ...HUB_SERVICES.map((s) => usageRow(s.portEnv, `${s.name} port (${s.defaultPort})`)),
  usageRow('CAREEN_ROOT_PASSWORD', 'hub admin password (default: generated once)'),
  usageRow('CAREEN_LOG_LEVEL', 'service log level (info)'),
  usageRow('CAREEN_OTEL_ENDPOINT', 'OpenTelemetry endpoint given to the services'),
  usageRow('CAREEN_NATS_SERVER_BIN', 'nats-server binary to use'),
].join('\n');

export function readStartConfig(argv: readonly string[], env: NodeJS.ProcessEnv): StartConfig {
  const unknown = argv.filter((arg) => !['--reset', '--help', '-h'].includes(arg));
  if (unknown.length > 0) throw new LauncherError(`unknown argument ${unknown.join(' ')}\n\n${START_USAGE}`);
  return {
    reset: argv.includes('--reset'),
    help: argv.includes('--help') || argv.includes('-h'),
    state: stateFolder(env),
    pgPort: portFromEnv(env, PG_PORT_ENV, 55432),
    natsPort: portFromEnv(env, NATS_PORT_ENV, 54222),
    services: installedHubServices().map((service) => ({
      service,
      port: portFromEnv(env, service.portEnv, service.defaultPort),
    })),
    exchangePort: portFromEnv(env, 'CAREEN_EXCHANGE_PORT', 8080),
    logLevel: env.CAREEN_LOG_LEVEL || 'info',
    otelEndpoint: env.CAREEN_OTEL_ENDPOINT || undefined,
  };
}

export function portClaims(config: StartConfig): PortClaim[] {
  return [
    { owner: 'Postgres', envVar: PG_PORT_ENV, port: config.pgPort },
    { owner: 'NATS', envVar: NATS_PORT_ENV, port: config.natsPort },
    ...config.services.map(({ service, port }) => ({ owner: service.name, envVar: service.portEnv, port })),
  ];
}
