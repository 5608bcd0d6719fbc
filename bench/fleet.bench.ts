/**
 * `npm run bench -- fleet [agents] [windowSeconds] [groupSize] [exchangeReplicas] [simulators]`
 * (default 5000, 60, 5, 1, one per 2,500 agents and at least one per replica): a fleet of
 * simulated agents (the agent's own core, spread over `simulators` processes, each agent
 * connecting from a loopback address of its own) against an exchange and an agbot each in its
 * own process, on a private Postgres and NATS; with several exchange replicas, each in its own
 * process, the agents of simulator process k reach replica k (round robin) and the agbot
 * reaches them through a round-robin TCP proxy in this process. Once every agent is
 * connected and idle, one node management policy moves them all to a new version within the
 * window, rolled through HA groups of `groupSize`. Printed: completion time relative to the
 * window; requests/s and CPU of the exchange and the agbot, Postgres's CPU and how busy the
 * whole machine was, at peak and over the rollout, next to the same figures for the idle fleet
 * over two poll periods just before (the baseline), and the CPU the hub spent per agent
 * upgraded, in all and above what the idle fleet would have cost over the same time, next to
 * its floor (17.7 requests, as many as an upgrade took when the goal was set, each at the CPU of
 * a bare node:http server doing one SELECT, measured in this run before the agents start) and to
 * the simulated fleet's own CPU per agent; the services' resident memory; how long the policy
 * change took to reach the agents over the long-poll feed (p50/p99); the warnings the agents logged over the rollout (a status
 * write refused or timed out, a download cut off: each tried again), by message and error, and
 * the connections the kernel turned away for a full accept queue; from the agbot's grant
 * history, how long members held their group's slot and how long a group's slot stayed free
 * between members, with invariant 1 replayed from that history (a violation fails the run); the
 * changes an agent was given out of commit order and the agents whose final `successful` status
 * the exchange does not hold (either fails the run); and the agbot's lag on the exchange's
 * change stream (changes its consumer had not yet applied, asked of the NATS server once a
 * second) and how long after the last upgrade it caught up. With `CAREEN_BENCH_PG_STATEMENTS=<n>`,
 * also the n statements that cost Postgres most over the rollout (pg_stat_statements).
 */
import { CHANGES_CONSUMER } from '@careen/agbot/src/mirror/mirror-change-handler';
import { findViolations, readTimeline } from '@careen/agbot/src/upgrades/upgrade-timeline';
import { hashSecret } from '@careen/auth';
import { type BusConnection, connectBus } from '@careen/bus';
import { STREAMS } from '@careen/contracts';
import { simulatedAgentPackage } from '@careen/agent/src/index';
import { withClient } from '@careen/testing';
import { type BenchHub, startExchangeAndAgbot } from './support/hub';
import { startBenchStack } from './support/bench-stack';
import {
  cpuSeconds,
  listenOverflows,
  machineCpuSeconds,
  residentMegabytes,
  type ServiceProcess,
} from './support/service-process';
import { SimulatorProcesses, simulatorNodeIds } from './support/simulator-processes';
import { measureFloor } from './support/floor';
import { slotSpans } from './support/slot-spans';
import { StatementStats } from './support/statement-stats';
import { readRouteTimes, routeTimesBetween } from './support/route-times';
import { printTable, summarize } from './support/stats';

const AGENTS = Number(process.argv[2] ?? 5_000);
const WINDOW_SECONDS = Number(process.argv[3] ?? 60);
const GROUP_SIZE = Number(process.argv[4] ?? 5);
const EXCHANGE_REPLICAS = Number(process.argv[5] ?? 1);
/**
 * During a rollout a simulated agent holds up to five descriptors at once (its long poll, a status
 * write, the download and its file, a wait for its group's slot), each agent with a pool of its
 * own: 2,500 agents keep one process well inside a 20,000 open-file limit. Past it, agents fail
 * with EMFILE on their own side, which the bench would count against the hub.
 */
const AGENTS_PER_SIMULATOR = 2_500;
/** At least one per exchange replica: a process's agents all reach one replica. */
const SIMULATORS = Number(
  process.argv[6] ?? Math.max(Math.ceil(AGENTS / AGENTS_PER_SIMULATOR), EXCHANGE_REPLICAS),
);
const ROOT_PASSWORD = 'bench-password';
const NODE_TOKEN = 'bench-node-token-secret';
const POLL_SECONDS = 30;
/** The idle baseline spans two poll periods: every agent polls (its heartbeat) in it at least twice. */
const BASELINE_SECONDS = 2 * POLL_SECONDS;
const START_RATE = Number(process.env.CAREEN_BENCH_START_RATE ?? 20);
/** A rollout still under way this long after the policy was published is reported as not done. */
const GIVE_UP_SECONDS = Math.max(WINDOW_SECONDS * 10, 1_800);
/**
 * The requests an agent upgrade took when the hub's goal was set (5.6 status writes, 5.4 feed
 * polls, 2 node status, 2 package reads, 1.65 grant asks, 1 release): the floor an upgrade is
 * held to is this many floor requests, so that fewer requests count as a gain.
 */
const GOAL_REQUESTS_PER_UPGRADE = 17.7;
const FLOOR_REQUESTS = 20_000;
const FLOOR_CONCURRENCY = 64;

interface Sample {
  /** How long the sample spans. */
  seconds: number;
  exchange: number;
  agbot: number;
  exchangeCpu: number;
  agbotCpu: number;
  postgresCpu: number;
  /** The whole machine, every process on it: 100 is every core busy all the time. */
  machineBusy: number;
  /** Requests waiting for a database connection in the exchange (replicas summed), as last scraped. */
  exchangePoolWaiting: number;
  /** Exchange changes the agbot's consumer had not yet applied, as last asked. */
  agbotLag: number;
}

/**
 * Exchange changes on the stream that the agbot's durable consumer has not yet applied: not yet
 * delivered, or delivered and not yet acknowledged. The NATS server answers; the agbot is not asked.
 */
async function agbotChangeLag(bus: BusConnection): Promise<number> {
  const info = await bus.jsm.consumers.info(STREAMS.changes.name, CHANGES_CONSUMER);
  return info.num_pending + info.num_ack_pending;
}

/**
 * Samples requests per second per target and CPU (% of one core) per service and Postgres, how
 * busy the machine is and the agbot's lag on the change stream, once a second; with
 * `scrapePool`, the exchange's requests waiting for a database connection too. A scrape of
 * `/metrics` counts every open connection and file descriptor of the service, a cost that grows
 * with the fleet: once a second, fifteen to thirty times as often as Prometheus asks, it would be
 * a tenth of the idle exchange's CPU, so the idle baseline is sampled without it.
 */
class Sampler {
  readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private poolWaiting = 0;
  private scraping: Promise<void> | undefined;
  private lag = 0;
  private askingLag: Promise<void> | undefined;

  constructor(
    private readonly services: ServiceProcess[],
    private readonly postgresCpu: () => number,
    private readonly counts: () => { exchange: number; agbot: number },
    private readonly agbotLag: () => Promise<number>,
  ) {}

  start({ scrapePool }: { scrapePool: boolean }): void {
    let last = this.read();
    this.timer = setInterval(() => {
      const now = this.read();
      const seconds = (now.at - last.at) / 1000;
      const percent = (pick: (reading: typeof now) => number) => ((pick(now) - pick(last)) / seconds) * 100;
      this.samples.push({
        seconds,
        exchange: (now.exchange - last.exchange) / seconds,
        agbot: (now.agbot - last.agbot) / seconds,
        exchangeCpu: percent((reading) => reading.cpu.exchange),
        agbotCpu: percent((reading) => reading.cpu.agbot),
        postgresCpu: percent((reading) => reading.postgres),
        machineBusy:
          ((now.machine.busy - last.machine.busy) / (now.machine.total - last.machine.total)) * 100,
        exchangePoolWaiting: this.poolWaiting,
        agbotLag: this.lag,
      });
      last = now;
      // Before the agbot's consumer exists (it starts once the agbot leads) the lag reads 0.
      this.askingLag ??= this.agbotLag()
        .then(
          (lag) => void (this.lag = lag),
          () => void (this.lag = 0),
        )
        .finally(() => (this.askingLag = undefined));
      // One scrape at a time: a scrape waits for a connection too when the pool is full.
      if (scrapePool) this.scraping ??= this.scrapePoolWaiting().finally(() => (this.scraping = undefined));
    }, 1000);
  }

  stop(): Sample[] {
    clearInterval(this.timer);
    return this.samples.splice(0);
  }

  private read() {
    return {
      ...this.counts(),
      at: performance.now(),
      cpu: this.cpu(),
      postgres: this.postgresCpu(),
      machine: machineCpuSeconds(),
    };
  }

  /** The exchange's requests waiting for a database connection, for the next sample. */
  private async scrapePoolWaiting(): Promise<void> {
    let waiting = 0;
    for (const service of this.services.filter((candidate) => candidate.name === 'exchange')) {
      const text = await fetch(`${service.url}/metrics`).then(
        (response) => response.text(),
        () => '',
      );
      waiting += Number(/^careen_db_pool_waiting_requests\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
    }
    this.poolWaiting = waiting;
  }

  /** CPU seconds of each service, its replicas summed. */
  private cpu(): { exchange: number; agbot: number } {
    const of = (name: 'exchange' | 'agbot') =>
      this.services
        .filter((candidate) => candidate.name === name)
        // A service that has exited has no /proc entry; the run loop reports the exit.
        .reduce(
          (sum, service) => sum + (service.child.exitCode === null ? cpuSeconds(service.child.pid!) : 0),
          0,
        );
    return { exchange: of('exchange'), agbot: of('agbot') };
  }
}

/** Throws, naming the service and its log, when one of them has died under the load. */
function assertAlive(services: ServiceProcess[]): void {
  for (const service of services) {
    const { exitCode, signalCode } = service.child;
    if (exitCode !== null || signalCode !== null)
      throw new Error(`${service.name} exited (${signalCode ?? exitCode}); see ${service.logFile}`);
  }
}

/**
 * How many nodes the exchange holds as having upgraded under the bench's policy, asked until
 * all of them are or 30 s have passed (an agent's last status follows its new version by a
 * request).
 */
async function successfulStatuses(databaseUrl: string, agents: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  return withClient(databaseUrl, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM exchange.management_statuses
         WHERE org = 'bench' AND nmp = 'fleet-upgrade' AND status = 'successful' AND version = '2.0.0'`,
      );
      const count = rows[0]?.count ?? 0;
      if (count >= agents || Date.now() > deadline) return count;
      await new Promise((done) => setTimeout(done, 200));
    }
  });
}

/** The agbot's own count of slots granted and requests refused, from its /metrics. */
async function grantCounts(agbotUrl: string): Promise<{ grants: number; refusals: number }> {
  const text = await (await fetch(`${agbotUrl}/metrics`)).text();
  const count = (name: string) =>
    Number(new RegExp(`^${name}\\{holder="agent-upgrade"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    grants: count('careen_agbot_upgrade_grants_total'),
    refusals: count('careen_agbot_upgrade_refusals_total'),
  };
}

function rates(samples: Sample[]) {
  const mean = (pick: (sample: Sample) => number) =>
    samples.reduce((sum, sample) => sum + pick(sample), 0) / Math.max(1, samples.length);
  const peak = (pick: (sample: Sample) => number) => Math.max(0, ...samples.map(pick));
  // CPU seconds over the samples, from the share of a core (%) each sample measured.
  const cpuSeconds = (pick: (sample: Sample) => number) =>
    samples.reduce((sum, sample) => sum + (pick(sample) / 100) * sample.seconds, 0);
  return {
    seconds: samples.reduce((sum, sample) => sum + sample.seconds, 0),
    cpuSeconds: {
      exchange: cpuSeconds((s) => s.exchangeCpu),
      agbot: cpuSeconds((s) => s.agbotCpu),
      postgres: cpuSeconds((s) => s.postgresCpu),
    },
    exchangeRps: { mean: mean((s) => s.exchange), peak: peak((s) => s.exchange) },
    agbotRps: { mean: mean((s) => s.agbot), peak: peak((s) => s.agbot) },
    exchangeCpu: { mean: mean((s) => s.exchangeCpu), peak: peak((s) => s.exchangeCpu) },
    agbotCpu: { mean: mean((s) => s.agbotCpu), peak: peak((s) => s.agbotCpu) },
    postgresCpu: { mean: mean((s) => s.postgresCpu), peak: peak((s) => s.postgresCpu) },
    machineBusy: { mean: mean((s) => s.machineBusy), peak: peak((s) => s.machineBusy) },
    exchangePoolWaiting: {
      mean: mean((s) => s.exchangePoolWaiting),
      peak: peak((s) => s.exchangePoolWaiting),
    },
    agbotLag: { mean: mean((s) => s.agbotLag), peak: peak((s) => s.agbotLag) },
  };
}

/** Progress on stderr, so a long run shows where it is; the figures go to stdout. */
function progress(message: string): void {
  process.stderr.write(`[fleet] ${new Date().toISOString()} ${message}\n`);
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const bus = await connectBus({ url: stack.natsUrl, name: 'bench' });
  const services: ServiceProcess[] = [];
  let fleet: SimulatorProcesses | undefined;
  // It reads the services' CPU once started; they are all in `services` by then.
  const sampler = new Sampler(
    services,
    () => stack.cpuSeconds().postgres,
    () => fleet?.requests ?? { exchange: 0, agbot: 0 },
    () => agbotChangeLag(bus),
  );
  let hub: BenchHub | undefined;
  try {
    hub = await startExchangeAndAgbot(stack, ROOT_PASSWORD, services, EXCHANGE_REPLICAS);
    const { exchangeUrl, exchanges, agbot } = hub;
    const exchangeResident = () =>
      exchanges.reduce((sum, exchange) => sum + residentMegabytes(exchange.child.pid!), 0);
    const routeTimes = async () => ({
      exchange: await readRouteTimes(exchanges.map((exchange) => exchange.url)),
      agbot: await readRouteTimes([agbot.url]),
    });
    const root = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;
    const call = async (method: string, path: string, body?: unknown, raw?: Buffer) => {
      const response = await fetch(new URL(path, exchangeUrl), {
        method,
        headers: { authorization: root, 'content-type': raw ? 'application/gzip' : 'application/json' },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    };
    await call('POST', '/v1/orgs', { id: 'bench' });
    await call('POST', '/v1/orgs/bench/users', {
      username: 'admin',
      password: 'admin-password',
      role: 'orgAdmin',
    });
    await call('POST', '/v1/agent-packages', undefined, await simulatedAgentPackage('1.0.0'));
    await call('POST', '/v1/agent-packages', undefined, await simulatedAgentPackage('2.0.0'));
    progress(`the floor: ${FLOOR_REQUESTS} requests to node:http + one SELECT`);
    const floor = await measureFloor(stack, FLOOR_REQUESTS, FLOOR_CONCURRENCY);

    // The nodes are inserted directly, sharing one token hash: registering each would spend the
    // run hashing tokens. Their HA groups are formed through the API by the fleet.
    const ids = simulatorNodeIds(AGENTS, SIMULATORS);
    const tokenHash = await hashSecret(NODE_TOKEN);
    await withClient(stack.databaseUrl, (client) =>
      client.query(
        `INSERT INTO exchange.nodes (org, id, name, token_hash) SELECT 'bench', id, id, $2 FROM unnest($1::text[]) AS id`,
        [ids, tokenHash],
      ),
    );

    progress(`starting ${AGENTS} agents at ${START_RATE}/s in ${SIMULATORS} simulator process(es)`);
    const connecting = performance.now();
    fleet = await SimulatorProcesses.start({
      exchangeUrls: exchanges.map((exchange) => exchange.url),
      agbotUrl: agbot.url,
      org: 'bench',
      admin: { username: 'admin', password: 'admin-password' },
      agents: AGENTS,
      groupSize: GROUP_SIZE,
      processes: SIMULATORS,
      token: NODE_TOKEN,
      initialVersion: '1.0.0',
      pollSeconds: POLL_SECONDS,
      // Token requests cost the exchange a scrypt each: agents boot at a pace it can take.
      startRate: START_RATE,
    });
    // Connected and idle: every agent has read the feed to its head and reported its status.
    for (let round = 1; ; round++) {
      const rows = await withClient(stack.databaseUrl, (client) =>
        client.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM exchange.nodes WHERE org = 'bench' AND status->'agentVersion' IS NOT NULL`,
        ),
      );
      const reporting = Number(rows.rows[0]?.n ?? 0);
      if (reporting === AGENTS && fleet.caughtUp() === AGENTS) break;
      assertAlive(services);
      fleet.assertAlive();
      if (round % 60 === 0) progress(`${reporting} of ${AGENTS} agents reporting`);
      await new Promise((done) => setTimeout(done, 500));
    }
    const connectedMs = performance.now() - connecting;
    progress(
      `all connected after ${(connectedMs / 1000).toFixed(0)} s; idle baseline for ${BASELINE_SECONDS} s`,
    );

    // The idle fleet over two poll periods: the baseline.
    sampler.start({ scrapePool: false });
    await new Promise((done) => setTimeout(done, BASELINE_SECONDS * 1000));
    const idle = rates(sampler.stop());
    const idleResident = {
      exchange: exchangeResident(),
      agbot: residentMegabytes(agbot.child.pid!),
    };

    progress(`publishing the policy (${WINDOW_SECONDS} s window)`);
    const statementStats = await StatementStats.start(stack.databaseUrl);
    sampler.start({ scrapePool: true });
    const publishedAt = Date.now();
    const warningsBefore = { ...fleet.warnings };
    const overflowsBefore = listenOverflows();
    const timesBefore = await routeTimes();
    const requestsBefore = { ...fleet.requests };
    const simulatorCpuBefore = fleet.cpuSeconds();
    await call('PUT', '/v1/orgs/bench/management-policies/fleet-upgrade', {
      enabled: true,
      allowDisruptive: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: WINDOW_SECONDS },
    });
    const upgraded = () => fleet!.versions()['2.0.0'] ?? 0;
    for (let round = 1; upgraded() < AGENTS; round++) {
      if (round % 50 === 0) progress(`versions: ${JSON.stringify(fleet.versions())}`);
      assertAlive(services);
      fleet.assertAlive();
      if (Date.now() - publishedAt > GIVE_UP_SECONDS * 1_000) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    const finished = upgraded() === AGENTS;
    const completionMs = finished ? Date.now() - publishedAt : NaN;
    progress(
      finished
        ? `every agent at 2.0.0 after ${(completionMs / 1000).toFixed(1)} s`
        : `gave up after ${GIVE_UP_SECONDS} s: ${JSON.stringify(fleet.versions())}`,
    );
    const rollout = rates(sampler.stop());
    const statements = await statementStats?.top();
    const overflows = listenOverflows() - overflowsBefore;
    // The last agent's status is on the stream: the agbot has kept up once it has applied it.
    const lagAtEnd = await agbotChangeLag(bus);
    while ((await agbotChangeLag(bus)) > 0 && Date.now() - publishedAt - completionMs < 60_000)
      await new Promise((done) => setTimeout(done, 100));
    const caughtUpMs = Date.now() - publishedAt - completionMs;
    const timesAfter = await routeTimes();
    // What the agents had to try again (a status write refused or timed out, a download cut).
    const warnings = Object.entries(fleet.warnings)
      .map(([message, count]) => ({ message, count: count - (warningsBefore[message] ?? 0) }))
      .filter((warning) => warning.count > 0);
    const { grants, refusals } = await grantCounts(agbot.url);
    const simulatorCpu = fleet.cpuSeconds();
    const requestsPerAgent =
      (fleet.requests.exchange - requestsBefore.exchange + fleet.requests.agbot - requestsBefore.agbot) /
      Math.max(1, upgraded());
    const hubSeconds = ({ cpuSeconds }: ReturnType<typeof rates>) =>
      cpuSeconds.exchange + cpuSeconds.agbot + cpuSeconds.postgres;
    const hubMsPerAgent = (hubSeconds(rollout) * 1000) / Math.max(1, upgraded());
    // What the idle fleet would have cost over the rollout's time is left out: a rollout that
    // takes longer then costs no more per agent for its polls alone.
    const hubAboveIdleMsPerAgent =
      ((hubSeconds(rollout) - (hubSeconds(idle) / Math.max(1, idle.seconds)) * rollout.seconds) * 1000) /
      Math.max(1, upgraded());
    const simulatorMsPerAgent = ((simulatorCpu - simulatorCpuBefore) * 1000) / Math.max(1, upgraded());
    const floorMsPerRequest = floor.serverMs + floor.postgresMs;
    const floorMsPerUpgrade = GOAL_REQUESTS_PER_UPGRADE * floorMsPerRequest;
    const arrivals = fleet.policySeenAt.filter((at) => at >= publishedAt).map((at) => at - publishedAt);
    const latency = summarize(arrivals);
    // Invariant 1 replayed from what really happened, and where the rollout's time went.
    const timeline = await withClient(stack.databaseUrl, (client) =>
      readTimeline({ query: async (sql) => (await client.query(sql)).rows }),
    );
    const violations = findViolations(timeline, 1);
    // Nothing lost: every agent's last step of the upgrade is in the exchange, not only in the agent.
    const successful = finished ? await successfulStatuses(stack.databaseUrl, AGENTS) : 0;
    const spans = slotSpans(timeline);
    const held = summarize(spans.heldMs);
    const handOff = summarize(spans.handOffMs);

    printTable(
      `fleet: ${AGENTS} simulated agents in HA groups of ${GROUP_SIZE}, one policy with a ${WINDOW_SECONDS} s window, ` +
        `${EXCHANGE_REPLICAS} exchange replica${EXCHANGE_REPLICAS === 1 ? '' : 's'}`,
      [
        { figure: 'all agents connected and reporting (s)', value: connectedMs / 1000 },
        { figure: 'agents at the new version', value: upgraded() },
        { figure: 'rollout completion (s)', value: completionMs / 1000 },
        { figure: 'completion / window', value: completionMs / 1000 / WINDOW_SECONDS },
        { figure: 'policy change reached agents: p50 (ms)', value: latency.p50 },
        { figure: 'policy change reached agents: p99 (ms)', value: latency.p99 },
        { figure: 'policy change reached agents: max (ms)', value: latency.max },
        { figure: 'agents that saw it', value: arrivals.length },
        {
          figure: 'agent warnings over the rollout (a write or download failed and tried again)',
          value: warnings.reduce((sum, warning) => sum + warning.count, 0),
        },
        {
          figure: "connections turned away, the services' accept queues full (machine-wide)",
          value: overflows,
        },
        { figure: 'agbot slots granted', value: grants },
        { figure: 'agbot refused asks (each wake of a waiting request included)', value: refusals },
        ...(['exchange', 'agbot', 'postgres'] as const).map((service) => ({
          figure: `${service} CPU per agent upgraded (ms, over the rollout)`,
          value: (rollout.cpuSeconds[service] * 1000) / Math.max(1, upgraded()),
        })),
        { figure: 'hub CPU per agent upgraded (ms, exchange + agbot + Postgres)', value: hubMsPerAgent },
        {
          figure: 'hub CPU per agent upgraded above the idle fleet over the same time (ms)',
          value: hubAboveIdleMsPerAgent,
        },
        {
          figure: 'requests per agent upgraded (exchange + agbot, over the rollout)',
          value: requestsPerAgent,
        },
        {
          figure: `floor per request (ms of CPU: node:http ${floor.serverMs.toFixed(3)} + Postgres ${floor.postgresMs.toFixed(3)}, same run)`,
          value: floorMsPerRequest,
        },
        {
          figure: `floor per agent upgrade (ms: ${GOAL_REQUESTS_PER_UPGRADE} floor requests)`,
          value: floorMsPerUpgrade,
        },
        {
          figure: 'hub CPU per agent upgraded / its floor (goal ≤ 2)',
          value: hubMsPerAgent / floorMsPerUpgrade,
        },
        {
          figure: 'simulator CPU per agent upgraded (ms, over the rollout)',
          value: simulatorMsPerAgent,
        },
        {
          figure: 'simulator CPU per agent upgraded / hub CPU per agent upgraded (goal ≤ 0.25)',
          value: simulatorMsPerAgent / hubMsPerAgent,
        },
        { figure: 'slot held per member: p50 (ms)', value: held.p50 },
        { figure: 'slot held per member: p99 (ms)', value: held.p99 },
        { figure: "group's slot free between members: p50 (ms)", value: handOff.p50 },
        { figure: "group's slot free between members: p99 (ms)", value: handOff.p99 },
        { figure: 'invariant 1 violations (grant history replayed)', value: violations.length },
        { figure: 'changes given to an agent out of commit order', value: fleet.outOfOrder },
        { figure: "agents whose 'successful' status the exchange holds", value: successful },
        {
          figure: "agbot's change lag when the last agent upgraded (changes not yet applied)",
          value: lagAtEnd,
        },
        { figure: 'agbot caught up with the change stream, after the last upgrade (ms)', value: caughtUpMs },
        { figure: `simulator CPU (s, whole run, ${SIMULATORS} process(es))`, value: simulatorCpu },
        {
          figure: 'exchange resident memory, idle fleet (MiB, replicas summed)',
          value: idleResident.exchange,
        },
        {
          figure: 'exchange resident memory, after the rollout (MiB, replicas summed)',
          value: exchangeResident(),
        },
        { figure: 'agbot resident memory, idle fleet (MiB)', value: idleResident.agbot },
      ],
    );
    printTable(
      'requests/s and CPU (% of one core, replicas summed; the machine in % of all its cores): rollout next to the idle fleet (baseline, same run)',
      [
        {
          what: 'exchange requests/s',
          idleMean: idle.exchangeRps.mean,
          rolloutMean: rollout.exchangeRps.mean,
          rolloutPeak: rollout.exchangeRps.peak,
        },
        {
          what: 'agbot requests/s',
          idleMean: idle.agbotRps.mean,
          rolloutMean: rollout.agbotRps.mean,
          rolloutPeak: rollout.agbotRps.peak,
        },
        {
          what: 'exchange CPU %',
          idleMean: idle.exchangeCpu.mean,
          rolloutMean: rollout.exchangeCpu.mean,
          rolloutPeak: rollout.exchangeCpu.peak,
        },
        {
          what: 'agbot CPU %',
          idleMean: idle.agbotCpu.mean,
          rolloutMean: rollout.agbotCpu.mean,
          rolloutPeak: rollout.agbotCpu.peak,
        },
        {
          what: 'Postgres CPU %',
          idleMean: idle.postgresCpu.mean,
          rolloutMean: rollout.postgresCpu.mean,
          rolloutPeak: rollout.postgresCpu.peak,
        },
        {
          what: 'exchange requests waiting for a database connection',
          idleMean: '-',
          rolloutMean: rollout.exchangePoolWaiting.mean,
          rolloutPeak: rollout.exchangePoolWaiting.peak,
        },
        {
          what: "agbot's change lag (exchange changes not yet applied)",
          idleMean: idle.agbotLag.mean,
          rolloutMean: rollout.agbotLag.mean,
          rolloutPeak: rollout.agbotLag.peak,
        },
        {
          what: 'machine busy, every process (% of all cores)',
          idleMean: idle.machineBusy.mean,
          rolloutMean: rollout.machineBusy.mean,
          rolloutPeak: rollout.machineBusy.peak,
        },
      ],
    );
    printTable(
      'time in the service per request over the rollout, by route (long polls and waits for a slot count as held)',
      (['exchange', 'agbot'] as const).flatMap((service) =>
        routeTimesBetween(timesBefore[service], timesAfter[service]).map((row) => ({ service, ...row })),
      ),
    );
    if (statements)
      printTable('the costliest Postgres statements over the rollout (pg_stat_statements)', statements);
    if (warnings.length > 0) printTable('agent warnings over the rollout, by message and error', warnings);
    if (violations.length > 0)
      throw new Error(
        `two members of a group held its slot at once: ${JSON.stringify(violations.slice(0, 5))}`,
      );
    if (!finished) throw new Error(`not done after ${GIVE_UP_SECONDS} s`);
    if (fleet.outOfOrder > 0)
      throw new Error(
        `${fleet.outOfOrder} changes reached an agent out of commit order, as in:\n${fleet.outOfOrderCases.slice(0, 5).join('\n')}`,
      );
    if (successful < AGENTS)
      throw new Error(
        `the exchange holds a 'successful' status for ${successful} of ${AGENTS} upgraded agents`,
      );
  } finally {
    sampler.stop();
    await fleet?.stop();
    await hub?.close();
    for (const service of services) {
      await service.stop();
    }
    await bus.close();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
