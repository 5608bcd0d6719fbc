/**
 * A fleet of simulated agents in one process, each the same AgentCore a real node runs, with
 * an in-memory state, workload runtime and install strategy (which can be told to fail), against
 * the real exchange and agbot. It registers its nodes and HA groups with an org admin's
 * credentials, and keeps every agent's management-status steps as a timeline. Each agent has
 * connections of its own, as each agent process has: one pool shared by thousands of agents
 * spends its time looking for a free connection among their long polls.
 */
import { ApiError, dataOf, type Exchange, serviceClient } from '@careen/api-client';
import { type JsonLogger } from '@careen/telemetry';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCore } from '../agent-core';
import { type Clock, type RandomSource, systemClock } from '../core/clock';
import { type RequestObserver } from '../exchange/exchange-client';
import { type FeedChange } from '../exchange/exchange.types';
import { HubConnections } from '../exchange/hub-connections';
import { AgentMemory } from '../state/agent-memory';
import { AGENT_STATE_VERSION } from '../state/agent-state';
import { MemoryStateStore } from '../state/state-store';
import { SimulatedInstallStrategy } from '../upgrade/simulated-install.strategy';
import { SimulatedRuntime } from '../workloads/simulated-runtime';

export interface SimulatedFleetOptions {
  exchangeUrl: string;
  agbotUrl?: string;
  org: string;
  /** An org admin (or hub admin) of `org`, to register the nodes and form the groups. */
  admin: { username: string; password: string; org?: string };
  nodes: number;
  /** HA groups the nodes are dealt into round-robin; 0 or absent: none. */
  haGroups?: number;
  nodePrefix?: string;
  /** Version the agents run at the start. */
  initialVersion?: string;
  /** Fraction of agents whose upgrades fail the new version's health check (chosen at random). */
  failRate?: number;
  /** Fraction of agents whose rollbacks fail too: the version they ran does not come up again. */
  rollbackFailRate?: number;
  /** How long each simulated install takes, in seconds; default 0. */
  installSeconds?: number;
  /** Decides per node and new version whether an upgrade fails its health check; overrides failRate. */
  shouldFail?: (node: string, version: string) => boolean;
  /** Decides per node and version whether rolling back to it fails; overrides rollbackFailRate. */
  shouldFailRollback?: (node: string, version: string) => boolean;
  /** Skip registration: the nodes exist already, with the token `nodeToken(node)` gives. */
  registered?: boolean;
  /** The node token of each simulated node; default tokenOf. */
  nodeToken?: (node: string) => string;
  pollSeconds?: number;
  trustedKeys?: string[];
  clock?: Clock;
  random?: RandomSource;
  logger: JsonLogger;
  observeRequests?: RequestObserver;
  /** Sees each page of changes an agent's poll brought, with the agent's node. */
  observeChanges?: (node: string, changes: readonly FeedChange[]) => void;
  /** Sees each management-status step of every agent as it is reported. */
  observeStatuses?: (entry: TimelineEntry) => void;
  /** Agents started per second (a fleet does not boot all at once); unlimited when absent. */
  startRate?: number;
  /** Registrations in flight at once. */
  concurrency?: number;
  /**
   * The address the connections of agent `index` (its place in the fleet) leave from, as each
   * real node has an address of its own; by default the system picks. A machine simulating a
   * large fleet against a hub on loopback needs it: every connection to one address and port
   * takes a local port of its own, some 28,000 in Linux's default range, and the kernel's
   * search for a free one grows with those taken.
   */
  sourceAddress?: (index: number) => string;
}

export interface TimelineEntry {
  node: string;
  haGroup: string | null;
  nmp: string;
  status: string;
  version?: string;
  at: Date;
}

export interface SimulatedAgent {
  node: string;
  haGroup: string | null;
  core: AgentCore;
  strategy: SimulatedInstallStrategy;
  /** The workloads it runs. */
  runtime: SimulatedRuntime;
}

export interface SimulatedFleet {
  agents: SimulatedAgent[];
  timeline: TimelineEntry[];
  /** Agents per running version. */
  versions(): Record<string, number>;
  stop(): Promise<void>;
}

/** The token a simulated node uses: derived from its id, so a restarted simulator finds its nodes. */
export function tokenOf(node: string): string {
  return `simulated-${node}-token`;
}

/** The ids of a simulated fleet of `nodes` under `prefix`: `sim-0001`, `sim-0002`, … */
export function simulatedNodeIds(nodes: number, prefix = 'sim'): string[] {
  return Array.from({ length: nodes }, (_, i) => `${prefix}-${String(i + 1).padStart(4, '0')}`);
}

export async function startSimulatedFleet(options: SimulatedFleetOptions): Promise<SimulatedFleet> {
  const clock = options.clock ?? systemClock;
  const { observeChanges } = options;
  const random = options.random ?? Math.random;
  const prefix = options.nodePrefix ?? 'sim';
  const nodeToken = options.nodeToken ?? tokenOf;
  const groups = options.haGroups ?? 0;
  const ids = simulatedNodeIds(options.nodes, prefix);
  const groupOf = (i: number) => (groups > 0 ? `${prefix}-group-${(i % groups) + 1}` : null);
  const admin = `Basic ${Buffer.from(`${options.admin.org ?? options.org}/${options.admin.username}:${options.admin.password}`).toString('base64')}`;
  const exchange = serviceClient<Exchange.paths>(options.exchangeUrl);
  const asAdmin = { headers: { authorization: admin } };
  const org = options.org;

  if (!options.registered) {
    await inBatches(ids, options.concurrency ?? 32, (id) =>
      dataOf(
        exchange.PUT('/v1/orgs/{org}/nodes/{id}', {
          params: { path: { org, id } },
          body: { token: nodeToken(id) },
          ...asAdmin,
        }),
      ),
    );
  }
  for (let g = 0; g < groups; g++) {
    const name = `${prefix}-group-${g + 1}`;
    const members = ids.filter((_, i) => i % groups === g);
    try {
      await dataOf(
        exchange.POST('/v1/orgs/{org}/hagroups', {
          params: { path: { org } },
          body: { name, members },
          ...asAdmin,
        }),
      );
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
      await dataOf(
        exchange.PUT('/v1/orgs/{org}/hagroups/{name}', {
          params: { path: { org, name } },
          body: { members },
          ...asAdmin,
        }),
      );
    }
  }

  const failing = new Set(ids.filter(() => random() < (options.failRate ?? 0)));
  const shouldFail = options.shouldFail ?? ((node: string) => failing.has(node));
  const failingRollback = new Set(ids.filter(() => random() < (options.rollbackFailRate ?? 0)));
  const shouldFailRollback = options.shouldFailRollback ?? ((node: string) => failingRollback.has(node));
  const timeline: TimelineEntry[] = [];
  const downloads = await mkdtemp(join(tmpdir(), 'careen-fleet-'));
  const agents: SimulatedAgent[] = [];
  for (const [i, node] of ids.entries()) {
    const haGroup = groupOf(i);
    const strategy = new SimulatedInstallStrategy(
      options.initialVersion ?? '1.0.0',
      (version) => shouldFail(node, version),
      options.installSeconds ? { ms: options.installSeconds * 1000, clock } : undefined,
      (version) => shouldFailRollback(node, version),
    );
    const store = new MemoryStateStore();
    const memory = new AgentMemory(
      {
        schemaVersion: AGENT_STATE_VERSION,
        org: options.org,
        nodeId: node,
        token: nodeToken(node),
        starts: 1,
        lastStartedAt: clock.now().toISOString(),
      },
      store,
    );
    const runtime = new SimulatedRuntime();
    const core = new AgentCore({
      exchangeUrl: options.exchangeUrl,
      agbotUrl: options.agbotUrl,
      pollSeconds: options.pollSeconds ?? 30,
      builtinVersion: options.initialVersion ?? '1.0.0',
      strategy,
      runtime,
      downloadsDir: join(downloads, node),
      trustedKeys: options.trustedKeys ?? [],
      memory,
      clock,
      random,
      logger: options.logger.child({ node }),
      observeRequests: options.observeRequests,
      connections: new HubConnections({ localAddress: options.sourceAddress?.(i) }),
      observeChanges: observeChanges && ((changes) => observeChanges(node, changes)),
      observeStatuses: (event) => {
        const entry = { node, haGroup, ...event };
        timeline.push(entry);
        options.observeStatuses?.(entry);
      },
      retry: { baseMs: 200, maxMs: 5_000 },
    });
    agents.push({ node, haGroup, core, strategy, runtime });
  }
  const running: Promise<void>[] = [];
  const stopping = new AbortController();
  const ramp = (async () => {
    for (const agent of agents) {
      if (stopping.signal.aborted) return;
      running.push(agent.core.run());
      if (options.startRate) await clock.sleep(1000 / options.startRate, stopping.signal);
    }
  })();

  return {
    agents,
    timeline,
    versions: () =>
      agents.reduce<Record<string, number>>((counts, agent) => {
        counts[agent.core.version] = (counts[agent.core.version] ?? 0) + 1;
        return counts;
      }, {}),
    stop: async () => {
      stopping.abort();
      await ramp;
      for (const agent of agents) agent.core.stop();
      await Promise.all(running);
      await rm(downloads, { recursive: true, force: true });
    },
  };
}

async function inBatches<T>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  // One iterator shared by every lane: each item is taken by exactly one of them.
  const queue = items.values();
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      for (const item of queue) await work(item);
    }),
  );
}
