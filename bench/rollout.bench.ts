/**
 * `npm run bench -- rollout [agents] [groups] [haGroupSize]` (default 2000, 10, 5): simulated
 * agents (in this process) against an exchange, an agbot and the deployment orchestrator each in
 * its own process, on a private Postgres and NATS. A strategy of `groups` groups, each depending
 * on the one before (one rack of nodes each), is rolled to version 2.0.0; then the same fleet is
 * taken to 3.0.0 by one plain management policy, the baseline. Printed: both totals, and per
 * group (p50, p99, max) the orchestrator's own overhead — from a group's last node finishing (the
 * agents' timeline) to the next phase's policy published (the rollout's report), between groups
 * and from a group's prepare to its deploy — and the agents' part, from a policy published to
 * its first node starting on it.
 */
import { hashSecret } from '@careen/auth';
import {
  simulatedNodeIds,
  startSimulatedFleet,
  type SimulatedFleet,
  type TimelineEntry,
} from '@careen/agent/src/index';
import { buildPackage } from '@careen/agent/src/testing/agent-package.fixture';
import { createLogger } from '@careen/telemetry';
import { withClient } from '@careen/testing';
import { startExchangeAndAgbot } from './support/hub';
import { startBenchStack } from './support/bench-stack';
import { cpuSeconds, startServiceProcess, type ServiceProcess } from './support/service-process';
import { printTable, summarize } from './support/stats';

const AGENTS = Number(process.argv[2] ?? 2_000);
const GROUPS = Number(process.argv[3] ?? 10);
const HA_GROUP_SIZE = Number(process.argv[4] ?? 5);
const ROOT_PASSWORD = 'bench-password';
const NODE_TOKEN = 'bench-node-token-secret';
const START_RATE = Number(process.env.CAREEN_BENCH_START_RATE ?? 40);
const GIVE_UP_MS = 1_800_000;

function progress(message: string): void {
  process.stderr.write(`[rollout] ${new Date().toISOString()} ${message}\n`);
}

async function until(
  what: string,
  done: () => Promise<boolean> | boolean,
  services: ServiceProcess[],
  everyMs = 100,
): Promise<void> {
  const started = performance.now();
  for (let round = 1; !(await done()); round++) {
    for (const service of services)
      if (service.child.exitCode !== null) throw new Error(`${service.name} died: see ${service.logFile}`);
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`gave up waiting for ${what}`);
    if (round % Math.ceil(10_000 / everyMs) === 0) progress(`waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Per group and phase: its first and last status step on the agents' timeline. */
function phaseSpans(
  timeline: readonly TimelineEntry[],
  prefix: string,
): Record<string, { first: number; last: number }>[] {
  const spans: Record<string, { first: number; last: number }>[] = [];
  for (const entry of timeline) {
    if (!entry.nmp.startsWith(prefix)) continue;
    const [index, phase] = entry.nmp.slice(prefix.length).split('-') as [string, string];
    const at = entry.at.getTime();
    const span = ((spans[Number(index)] ??= {})[phase] ??= { first: at, last: at });
    span.first = Math.min(span.first, at);
    span.last = Math.max(span.last, at);
  }
  return spans;
}

/** Per group, when the orchestrator published its prepare (the group's start) and its deploy (the nodes' last send). */
function askedTimes(report: Record<string, unknown>): { prepare: number; deploy: number }[] {
  const nodes = report.nodes as { group: string | null; sent_at: string | null }[];
  return (report.groups as { name: string; started_at: string }[]).map((group) => ({
    prepare: Date.parse(group.started_at),
    deploy: Math.max(
      ...nodes.filter((node) => node.group === group.name).map((node) => Date.parse(node.sent_at!)),
    ),
  }));
}

/** One group of the rollout: when the orchestrator published each phase, and the agents' span of each. */
interface GroupTimes {
  asked: { prepare: number; deploy: number };
  prepare: { first: number; last: number };
  deploy: { first: number; last: number };
}

function groupTimes(
  spans: Record<string, { first: number; last: number }>[],
  asked: { prepare: number; deploy: number }[],
): GroupTimes[] {
  return Array.from(spans, (span, k) => {
    const times = asked[k];
    const { prepare, deploy } = span ?? {};
    if (!times || !prepare || !deploy) throw new Error(`group ${k} was not both prepared and deployed`);
    return { asked: times, prepare, deploy };
  });
}

/** Each item with the one after it. */
function consecutivePairs<T>(items: readonly T[]): [T, T][] {
  const pairs: [T, T][] = [];
  let earlier: T | undefined;
  for (const later of items) {
    if (earlier !== undefined) pairs.push([earlier, later]);
    earlier = later;
  }
  return pairs;
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const services: ServiceProcess[] = [];
  let fleet: SimulatedFleet | undefined;
  try {
    const hub = { CAREEN_DATABASE_URL: stack.databaseUrl, CAREEN_NATS_URL: stack.natsUrl };
    const { exchange, agbot } = await startExchangeAndAgbot(stack, ROOT_PASSWORD, services);
    const orchestrator = await startServiceProcess('deployment-orchestrator', {
      ...hub,
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    services.push(orchestrator);
    const root = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;
    const call = async (base: string, method: string, path: string, body?: unknown, raw?: Buffer) => {
      const response = await fetch(new URL(path, base), {
        method,
        headers: { authorization: root, 'content-type': raw ? 'application/gzip' : 'application/json' },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>);
    };
    await call(exchange.url, 'POST', '/v1/orgs', { id: 'bench' });
    await call(exchange.url, 'POST', '/v1/orgs/bench/users', {
      username: 'admin',
      password: 'admin-password',
      role: 'orgAdmin',
    });
    for (const version of ['1.0.0', '2.0.0', '3.0.0'])
      await call(exchange.url, 'POST', '/v1/agent-packages', undefined, await buildPackage({ version }));

    // Inserted directly, one token hash for all; group k's nodes are on rack-k. HA groups are dealt
    // round-robin by the fleet, so a group's nodes are in different HA groups.
    const ids = simulatedNodeIds(AGENTS);
    const perGroup = Math.ceil(AGENTS / GROUPS);
    const tokenHash = await hashSecret(NODE_TOKEN);
    await withClient(stack.databaseUrl, (client) =>
      client.query(
        `INSERT INTO exchange.nodes (org, id, name, token_hash, rack)
         SELECT 'bench', id, id, $2, 'rack-' || ((ordinality - 1) / $3) FROM unnest($1::text[]) WITH ORDINALITY AS id`,
        [ids, tokenHash, perGroup],
      ),
    );
    progress(`starting ${AGENTS} agents at ${START_RATE}/s`);
    fleet = await startSimulatedFleet({
      exchangeUrl: exchange.url,
      agbotUrl: agbot.url,
      org: 'bench',
      admin: { username: 'admin', password: 'admin-password' },
      nodes: AGENTS,
      haGroups: Math.ceil(AGENTS / HA_GROUP_SIZE),
      registered: true,
      nodeToken: () => NODE_TOKEN,
      initialVersion: '1.0.0',
      pollSeconds: 30,
      startRate: START_RATE,
      logger: createLogger('bench-fleet', { level: 'fatal' }),
    });
    await until('every agent connected', () => fleet!.agents.every((agent) => agent.core.caughtUp), services);

    const groups = Array.from({ length: GROUPS }, (_, k) => ({
      name: `group-${k}`,
      critical: true,
      depends_on: k === 0 ? [] : [`group-${k - 1}`],
      selectors: [{ rack_names: [`rack-${k}`] }],
    }));
    await call(orchestrator.url, 'POST', '/v1/strategies?org=bench', { name: 'chain', groups });
    progress(`rolling a ${GROUPS}-group chain to 2.0.0`);
    const orchestratorCpu = cpuSeconds(orchestrator.child.pid!);
    const rolloutStart = performance.now();
    const started = (await call(orchestrator.url, 'POST', '/v1/rollouts', {
      strategy: 'chain',
      version: '2.0.0',
      org: 'bench',
    }))!;
    const id = String(started.id);
    let state = 'running';
    let report: Record<string, unknown> = started;
    await until(
      'the rollout',
      async () => {
        // A look that fails (a kept-alive connection closed under it) is tried again next round.
        const answer = await call(orchestrator.url, 'GET', `/v1/rollouts/${id}`).catch((error: Error) => {
          progress(`looking at the rollout failed: ${error.message} (${String(error.cause)})`);
          return undefined;
        });
        if (answer) [report, state] = [answer, String(answer.state)];
        return ['completed', 'failed', 'cancelled'].includes(state);
      },
      services,
      1_000,
    );
    const rolloutMs = performance.now() - rolloutStart;
    const rolloutCpu = cpuSeconds(orchestrator.child.pid!) - orchestratorCpu;
    const timed = groupTimes(phaseSpans(fleet.timeline, `rollout-${id.slice(0, 8)}-`), askedTimes(report));
    const consecutive = consecutivePairs(timed);
    // The orchestrator's own part: from a group's last node done (the agents' timeline) to the
    // next phase's policy published (the report), between groups and from prepare to deploy;
    // then the agents' part, from a policy published to its first node starting on it.
    const betweenGroups = summarize(
      consecutive.map(([earlier, later]) => later.asked.prepare - earlier.deploy.last),
    );
    const withinGroups = summarize(timed.map((group) => group.asked.deploy - group.prepare.last));
    const pickup = summarize(
      timed.flatMap((group) => [
        group.prepare.first - group.asked.prepare,
        group.deploy.first - group.asked.deploy,
      ]),
    );
    const agentsToAgents = summarize(
      consecutive.map(([earlier, later]) => later.prepare.first - earlier.deploy.last),
    );
    progress(`rollout ${state} after ${(rolloutMs / 1000).toFixed(1)} s; the plain policy next`);

    const policyStart = performance.now();
    await call(exchange.url, 'PUT', '/v1/orgs/bench/management-policies/plain', {
      enabled: true,
      allowDisruptive: true,
      agentUpgradePolicy: { atLeastVersion: '3.0.0', start: 'now' },
    });
    await until('the plain policy', () => (fleet!.versions()['3.0.0'] ?? 0) === AGENTS, services);
    const policyMs = performance.now() - policyStart;

    printTable(
      `rollout: ${AGENTS} simulated agents, a chain of ${GROUPS} groups, HA groups of ${HA_GROUP_SIZE}`,
      [
        { figure: `strategy rollout to 2.0.0 (${state})`, seconds: rolloutMs / 1000 },
        { figure: 'one plain management policy to 3.0.0, same fleet', seconds: policyMs / 1000 },
        { figure: 'ratio (plain policy / rollout)', seconds: policyMs / rolloutMs },
        { figure: 'orchestrator CPU over the rollout', seconds: rolloutCpu },
      ],
    );
    const row = (figure: string, stats: ReturnType<typeof summarize>) => ({
      figure,
      'p50 s': stats.p50 / 1000,
      'p99 s': stats.p99 / 1000,
      'max s': stats.max / 1000,
    });
    printTable('per group', [
      row("orchestrator: a group's last node done → next group's prepare published", betweenGroups),
      row("orchestrator: a group's last node prepared → its deploy published", withinGroups),
      row('agents: a phase published → its first node starting', pickup),
      row("both: a group's last node done → next group's first node starting", agentsToAgents),
    ]);
  } finally {
    await fleet?.stop();
    for (const service of services.reverse()) await service.stop();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
