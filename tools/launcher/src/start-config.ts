/** What `npm start` runs with, read once from the command line and the environment. */
import { HUB_SERVICES, type HubService } from '@careen/devstack';
import { consoleInstalled } from './console-build';
import { installedHubServices } from './hub-services';
import { LauncherError } from './launcher-error';
import { portFromEnv, type PortClaim } from './ports';
import { stateFolder, type StateFolder } from './state-folder';

export const PG_PORT_ENV = 'CAREEN_PG_PORT';
export const NATS_PORT_ENV = 'CAREEN_NATS_PORT';
export const CONSOLE_PORT_ENV = 'CAREEN_CONSOLE_PORT';
/** The demo fleet's install time; a setting of the launcher's, which no service reads. */
export const DEMO_INSTALL_SECONDS_ENV = 'CAREEN_DEMO_INSTALL_SECONDS';

export interface StartConfig {
  reset: boolean;
  /** A three-node JetStream cluster on natsPort and the two ports after it, streams at three replicas. */
  cluster: boolean;
  help: boolean;
  state: StateFolder;
  pgPort: number;
  natsPort: number;
  services: { service: HubService; port: number }[];
  /** The exchange's port, which the other services call. */
  exchangePort: number;
  /** The web console's port; absent when this checkout has no console. */
  consolePort?: number;
  logLevel: string;
  otelEndpoint?: string;
  /**
   * The simulated demo fleet; absent when CAREEN_DEMO_NODES is 0 or the exchange is not here.
   * Each of its agent upgrades takes `installSeconds`.
   */
  demo?: { nodes: number; haGroups: number; installSeconds: number };
}

const usageRow = (name: string, text: string) => `  ${name.padEnd(38)}${text}`;

export const START_USAGE = [
  'usage: npm start [-- --reset] [-- --cluster]',
  '',
  'Runs Postgres, a JetStream nats-server, every hub service and a demo fleet of simulated',
  'agents on this machine.',
  '  --reset   delete the local state (database, NATS data, logs, credentials) first',
  '  --cluster run NATS as a three-node JetStream cluster (ports CAREEN_NATS_PORT and the two',
  "            after it), the services' streams at three replicas",
  '',
  'Environment:',
  usageRow('CAREEN_HOME', 'state folder (default .careen/ in the repository)'),
  usageRow(PG_PORT_ENV, 'embedded Postgres port (55432)'),
  usageRow(NATS_PORT_ENV, 'nats-server port (54222)'),
  ...HUB_SERVICES.map((s) => usageRow(s.portEnv, `${s.name} port (${s.defaultPort})`)),
  usageRow(CONSOLE_PORT_ENV, 'web console port (8085)'),
  usageRow('CAREEN_ROOT_PASSWORD', 'hub admin password (default: generated once)'),
  usageRow('CAREEN_LOG_LEVEL', 'service log level (info)'),
  usageRow('CAREEN_OTEL_ENDPOINT', 'OpenTelemetry endpoint given to the services'),
  usageRow('CAREEN_DEMO_NODES', 'simulated agents of the demo fleet (12; 0: none)'),
  usageRow('CAREEN_DEMO_GROUPS', 'HA groups they are dealt into (4)'),
  usageRow(DEMO_INSTALL_SECONDS_ENV, 'seconds each of their agent upgrades takes (5)'),
  usageRow('CAREEN_NATS_SERVER_BIN', 'nats-server binary to use'),
].join('\n');

export function readStartConfig(argv: readonly string[], env: NodeJS.ProcessEnv): StartConfig {
  const unknown = argv.filter((arg) => !['--reset', '--cluster', '--help', '-h'].includes(arg));
  if (unknown.length > 0) throw new LauncherError(`unknown argument ${unknown.join(' ')}\n\n${START_USAGE}`);
  const services = installedHubServices();
  const demoNodes = countFromEnv(env, 'CAREEN_DEMO_NODES', 12, 0, 1000);
  const demoGroups = countFromEnv(env, 'CAREEN_DEMO_GROUPS', 4, 0, 1000);
  // Long enough that members of a group whose moments fall close together wait their turn.
  const installSeconds = countFromEnv(env, DEMO_INSTALL_SECONDS_ENV, 5, 0, 3600);
  const withExchange = services.some((service) => service.name === 'exchange');
  return {
    reset: argv.includes('--reset'),
    cluster: argv.includes('--cluster'),
    help: argv.includes('--help') || argv.includes('-h'),
    state: stateFolder(env),
    pgPort: portFromEnv(env, PG_PORT_ENV, 55432),
    natsPort: portFromEnv(env, NATS_PORT_ENV, 54222),
    services: services.map((service) => ({
      service,
      port: portFromEnv(env, service.portEnv, service.defaultPort),
    })),
    exchangePort: portFromEnv(env, 'CAREEN_EXCHANGE_PORT', 8080),
    consolePort: consoleInstalled() && withExchange ? portFromEnv(env, CONSOLE_PORT_ENV, 8085) : undefined,
    logLevel: env.CAREEN_LOG_LEVEL || 'info',
    otelEndpoint: env.CAREEN_OTEL_ENDPOINT || undefined,
    demo:
      demoNodes > 0 && withExchange
        ? { nodes: demoNodes, haGroups: Math.min(demoGroups, demoNodes), installSeconds }
        : undefined,
  };
}

function countFromEnv(
  env: NodeJS.ProcessEnv,
  envVar: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[envVar];
  if (raw === undefined || raw === '') return fallback;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < min || count > max) {
    throw new LauncherError(`${envVar}=${raw} is not a whole number from ${min} to ${max}.`);
  }
  return count;
}

export function portClaims(config: StartConfig): PortClaim[] {
  return [
    { owner: 'Postgres', envVar: PG_PORT_ENV, port: config.pgPort },
    ...natsPorts(config).map((port) => ({ owner: 'NATS', envVar: NATS_PORT_ENV, port })),
    ...config.services.map(({ service, port }) => ({ owner: service.name, envVar: service.portEnv, port })),
    ...(config.consolePort ? [{ owner: 'console', envVar: CONSOLE_PORT_ENV, port: config.consolePort }] : []),
  ];
}

/** The NATS client ports: one, or on a cluster three in a row. */
export function natsPorts(config: StartConfig): number[] {
  return config.cluster ? [0, 1, 2].map((offset) => config.natsPort + offset) : [config.natsPort];
}
