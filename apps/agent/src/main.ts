/**
 * `careen-agent`: the edge agent daemon (stops cleanly on SIGTERM or SIGINT);
 * `careen-agent simulate --nodes N`: a fleet of simulated agents on the same core; and
 * `careen-agent busy|free`: the node declares itself busy, so no disruption starts on it, or free.
 */
import { ConfigError, loadConfig } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { Command, InvalidArgumentError } from 'commander';
import { AgentConfig } from './agent.config';
import { AgentDaemon } from './agent-daemon';
import { ApiError } from '@careen/api-client';
import { startSimulatedFleet } from './simulator/simulated-fleet';
import { SimulatorConfig } from './simulator/simulator.config';
import { AgentStateError, AgentStateStore } from './state/agent-state.store';
import { declareBusy, declareFree } from './agbot/busy-declaration';

async function runDaemon(): Promise<void> {
  const config = loadConfig(AgentConfig);
  const logger = createLogger('agent', { level: config.CAREEN_LOG_LEVEL });
  const daemon = new AgentDaemon(config, new AgentStateStore(config.CAREEN_AGENT_STATE_DIR), logger);
  await daemon.start();
  process.once('SIGTERM', () => daemon.stop());
  process.once('SIGINT', () => daemon.stop());
  await daemon.run();
}

function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return parsed;
}

function seconds(value: string): number {
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed <= 3600)) throw new InvalidArgumentError('seconds from 0 to 3600');
  return parsed;
}

function rate(value: string): number {
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError('a fraction between 0 and 1');
  return parsed;
}

async function runSimulation(options: {
  nodes: number;
  groups: number;
  failRate: number;
  rollbackFailRate: number;
  org: string;
  exchange: string;
  agbot?: string;
  admin: string;
  prefix: string;
  agentVersion: string;
  installSeconds: number;
  logLevel: SimulatorConfig['CAREEN_LOG_LEVEL'];
}): Promise<void> {
  const [username, ...password] = options.admin.split(':');
  const logger = createLogger('agent-simulator', { level: options.logLevel });
  const fleet = await startSimulatedFleet({
    exchangeUrl: options.exchange,
    agbotUrl: options.agbot,
    org: options.org,
    admin: { username: username ?? '', password: password.join(':') },
    nodes: options.nodes,
    haGroups: options.groups,
    failRate: options.failRate,
    rollbackFailRate: options.rollbackFailRate,
    nodePrefix: options.prefix,
    initialVersion: options.agentVersion,
    installSeconds: options.installSeconds,
    logger,
  }).catch((error: unknown) => {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403))
      throw new ConfigError([
        `the exchange refused org admin "${username}" of org "${options.org}" (${error.status}): check --admin or CAREEN_SIMULATOR_ADMIN`,
      ]);
    throw error;
  });
  const stop = () => void fleet.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  logger.info({ nodes: options.nodes, groups: options.groups }, 'simulated fleet running; Ctrl-C stops it');
}

function busySeconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 86_400)
    throw new InvalidArgumentError('whole seconds from 1 to 86400');
  return parsed;
}

/** The agent's settings and state folder, as the daemon reads them. */
function nodeIdentity(): { config: AgentConfig; store: AgentStateStore } {
  const config = loadConfig(AgentConfig);
  return { config, store: new AgentStateStore(config.CAREEN_AGENT_STATE_DIR) };
}

const program = new Command('careen-agent')
  .description('The Careen edge agent; configured by CAREEN_* variables')
  .action(runDaemon);
program
  .command('busy')
  .description(
    'declare this node busy (a backup, a resize): no disruption starts on it until free or the time is up',
  )
  .requiredOption('--reason <text>', 'what it is busy with')
  .requiredOption('--for <seconds>', 'how long, unless declared again or freed (1–86400)', busySeconds)
  .action(async (flags: { reason: string; for: number }) => {
    const { config, store } = nodeIdentity();
    const busy = await declareBusy(config, store, flags.reason, flags.for);
    process.stdout.write(`node ${busy.node} is busy until ${busy.until}: ${busy.reason}\n`);
  });
program
  .command('free')
  .description('declare this node free again')
  .action(async () => {
    const { config, store } = nodeIdentity();
    await declareFree(config, store);
    process.stdout.write('this node is free\n');
  });
program
  .command('simulate')
  .description('run N simulated agents in this process against real Careen services')
  .requiredOption('--nodes <n>', 'how many agents', count)
  .option('--groups <g>', 'HA groups to spread them over (default: none)', count)
  .option(
    '--fail-rate <r>',
    "fraction of agents whose upgrades fail the new version's health check (they roll back)",
    rate,
    0,
  )
  .option(
    '--rollback-fail-rate <r>',
    'fraction of agents whose rollbacks fail too (they end rollback-failed)',
    rate,
    0,
  )
  .option('--org <org>', 'the org of the nodes (default: CAREEN_AGENT_ORG or demo)')
  .option('--exchange <url>', 'exchange URL (default: CAREEN_EXCHANGE_URL or http://127.0.0.1:8080)')
  .option('--agbot <url>', 'agbot URL (default: CAREEN_AGBOT_URL)')
  .option(
    '--admin <user:password>',
    'org admin who registers the nodes and groups (default: CAREEN_SIMULATOR_ADMIN)',
  )
  .option('--prefix <prefix>', 'node id prefix', 'sim')
  .option('--agent-version <version>', 'agent version the agents start at', '1.0.0')
  .option('--install-seconds <s>', 'how long each simulated install takes', seconds, 0)
  .action(
    async (flags: {
      nodes: number;
      groups?: number;
      failRate: number;
      rollbackFailRate: number;
      org?: string;
      exchange?: string;
      agbot?: string;
      admin?: string;
      prefix: string;
      agentVersion: string;
      installSeconds: number;
    }) => {
      const env = loadConfig(SimulatorConfig);
      const admin = flags.admin ?? env.CAREEN_SIMULATOR_ADMIN;
      if (!admin)
        throw new ConfigError(['--admin (or CAREEN_SIMULATOR_ADMIN) is missing: username:password']);
      await runSimulation({
        ...flags,
        groups: flags.groups ?? 0,
        org: flags.org ?? env.CAREEN_AGENT_ORG,
        exchange: flags.exchange ?? env.CAREEN_EXCHANGE_URL,
        agbot: flags.agbot ?? env.CAREEN_AGBOT_URL,
        admin,
        logLevel: env.CAREEN_LOG_LEVEL,
      });
    },
  );

/** A failure as one line: what went wrong, not where in the code (CAREEN_DEBUG=1 adds the stack). */
function failureLine(error: unknown): string {
  if (process.env.CAREEN_DEBUG === '1' && error instanceof Error && error.stack) return error.stack;
  if (error instanceof ConfigError) return `invalid configuration: ${error.problems.join('; ')}`;
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, '; ');
}

program.parseAsync(process.argv).catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof AgentStateError;
  process.stderr.write(`careen-agent: ${failureLine(error)}\n`);
  process.exit(known ? 78 : 1);
});
