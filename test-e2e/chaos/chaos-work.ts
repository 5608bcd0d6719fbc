/**
 * The work the chaos run keeps under way while faults are injected, one after another for as
 * long as it runs:
 * - org `edge`: twelve simulated agents in four HA groups, project `shop` placed on half of them
 *   and answered by the reference VNF manager, service `edge.cache` on all of them; agent
 *   rollouts (a management policy to the next version), maintenance sessions over two groups
 *   at a time and rolled upgrades of `edge.cache`, all at once, on the same HA groups;
 * - org `core`: nine simulated agents laid out as Shipyard's example fleet, its deployment
 *   strategy rolled to the next version, rollout after rollout.
 * Every item of work is recorded with how it ended, and every step of progress in the log.
 */
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { buildPackage } from '@careen/agent/src/testing/agent-package.fixture';
import { connectBus, type BusConnection } from '@careen/bus';
import { ExchangeClient } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { basic, seededRandom } from '@careen/testing';
import { ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import { setTimeout as pause } from 'node:timers/promises';
import { SEED_LAYOUT, SEED_STRATEGY } from '../support/orchestrator-hub';
import { ROOT_PASSWORD, type ChaosPlatform } from './chaos-platform';
import { type ProgressLog, type WorkKind } from './progress-log';
import { expectAnswer, steadyClient, type Call } from './steady-client';

const ADMIN = { username: 'ada', password: 'ada-password' };
const EDGE_NODES = 12;
const EDGE_GROUPS = 4;
const POLL_MS = 250;
/**
 * How long a session waits for a project's reply before it goes on without one. Faults lose
 * replies (a notifier replica killed, the bus delayed), so sessions do wait this out: it is the
 * longest quiet the work makes by design.
 */
export const REPLY_TIMEOUT_SECONDS = 15;

interface SessionTimelineEntry {
  at: string;
  kind: string;
  project_id: string | null;
  host: string | null;
  state: string | null;
}

interface SessionAsk {
  state: string;
  host: string | null;
  asked_at: string;
  answer: string;
  answered_at: string | null;
}

/** One item of work and how it ended (`open` while under way). */
export interface WorkItem {
  kind: WorkKind;
  id: string;
  startedAt: number;
  outcome: 'open' | 'completed' | 'failed';
  reason?: string;
  /** A strategy rollout's groups; a session's last view. */
  groups?: { name: string; depends_on: string[] }[];
  session?: {
    timeline: SessionTimelineEntry[];
    projects: { project_id: string; asks: SessionAsk[] }[];
    hosts: { host: string; phase: string }[];
  };
}

export class ChaosWork {
  readonly items: WorkItem[] = [];
  /** Problems of the run's own driver: a call the platform never answered, say. */
  readonly incidents: string[] = [];
  /** Moments an HA group of `edge` had no member running `edge.cache` (invariant 2), sampled. */
  readonly outages: string[] = [];
  edge!: SimulatedFleet;
  core!: SimulatedFleet;
  private sampler: NodeJS.Timeout | undefined;
  private vnfManager!: ReferenceVnfManager;
  private vnfBus!: BusConnection;
  private stopping = false;
  private loops: Promise<void>[] = [];
  private readonly published = new Set<string>();
  private readonly root: Call;
  private readonly edgeAdmin: Call;
  private readonly maintenance: Call;
  private readonly orchestrator: Call;

  constructor(
    private readonly platform: ChaosPlatform,
    private readonly progress: ProgressLog,
    private readonly seed: number,
  ) {
    const exchange = () => platform.url('exchange');
    this.root = steadyClient(exchange, basic('root', 'root', ROOT_PASSWORD));
    this.edgeAdmin = steadyClient(exchange, basic('edge', ADMIN.username, ADMIN.password));
    this.maintenance = steadyClient(
      () => platform.url('maintenance-session'),
      basic('edge', ADMIN.username, ADMIN.password),
    );
    this.orchestrator = steadyClient(
      () => platform.url('deployment-orchestrator'),
      basic('core', ADMIN.username, ADMIN.password),
    );
  }

  async setUp(): Promise<void> {
    for (const org of ['edge', 'core']) {
      await expectAnswer(this.root('POST', '/v1/orgs', { id: org }), [201], `creating org ${org}`);
      await expectAnswer(
        this.root('POST', `/v1/orgs/${org}/users`, { ...ADMIN, role: 'orgAdmin' }),
        [201],
        `adding ${org}'s admin`,
      );
    }
    await this.publish('1.0.0');
    for (const arch of ['amd64', 'arm64'])
      await expectAnswer(
        this.edgeAdmin('PUT', `/v1/orgs/edge/services/web-${arch}`, {
          url: 'edge.web',
          version: '1.0.0',
          arch,
          runtime: {},
        }),
        [201],
        `publishing service web for ${arch}`,
      );
    await expectAnswer(
      this.edgeAdmin('PUT', '/v1/orgs/edge/deployment-policies/web', {
        project: 'shop',
        service: { org: 'edge', url: 'edge.web', versionRange: '>=1.0.0' },
        placement: { mode: 'replicas', replicas: EDGE_NODES / 2 },
      }),
      [201],
      'adding deployment policy web',
    );
    await this.publishCache('1.0.0');
    await expectAnswer(
      this.edgeAdmin('PUT', '/v1/orgs/edge/deployment-policies/cache', {
        project: 'infra',
        service: { org: 'edge', url: 'edge.cache', versionRange: '>=1.0.0' },
        placement: { mode: 'all' },
      }),
      [201],
      'adding deployment policy cache',
    );
    const logger = createLogger('chaos-fleet', { level: 'error' });
    const fleet = (org: string, nodes: number, haGroups: number, kind: WorkKind, random: () => number) =>
      startSimulatedFleet({
        exchangeUrl: this.platform.agentLink.url,
        agbotUrl: this.platform.url('agbot'),
        org,
        admin: ADMIN,
        nodes,
        haGroups,
        ...(org === 'edge' ? { nodePrefix: 'edge' } : {}),
        initialVersion: '1.0.0',
        installSeconds: 0.5,
        pollSeconds: 1,
        random,
        observeStatuses: (entry) => this.progress.mark(kind, entry.at.getTime()),
        logger,
      });
    this.edge = await fleet('edge', EDGE_NODES, EDGE_GROUPS, 'agent-rollout', seededRandom(this.seed));
    this.core = await fleet('core', 9, 3, 'strategy-rollout', seededRandom(this.seed + 1));
    for (const [node, layout] of Object.entries(SEED_LAYOUT))
      await expectAnswer(
        this.root('PUT', `/v1/orgs/core/nodes/${node}`, layout),
        [200, 201],
        `placing ${node}`,
      );
    await expectAnswer(
      this.orchestrator('POST', '/v1/strategies', undefined, {
        rawBody: Buffer.from(SEED_STRATEGY),
        headers: { 'content-type': 'application/yaml' },
      }),
      [201],
      "publishing Shipyard's example strategy",
    );
    await this.until(async () => this.edge.agents.every((agent) => this.cacheVersion(agent) === '1.0.0'));
    this.sampleGroups();
    // Project shop hears of maintenance through the notifier's signed webhooks, and answers on the bus.
    // Known once subscribed; the VNF manager checks each delivery's signature with it.
    const subscription: { secret?: string } = {};
    this.vnfBus = await connectBus({ url: this.platform.cluster.url, name: 'chaos-vnf-manager' });
    this.vnfManager = new ReferenceVnfManager({
      bus: this.vnfBus,
      project: 'shop',
      follow: { via: 'webhook', port: 0, secret: () => subscription.secret },
      replyVia: 'bus',
      exchange: {
        client: new ExchangeClient(this.platform.url('exchange'), { org: 'edge', ...ADMIN }),
        org: 'edge',
        deploymentPolicy: 'web',
      },
      logger: createLogger('chaos-vnf-manager', { level: 'error' }),
    });
    const webhookUrl = await this.vnfManager.start();
    const notifier = steadyClient(
      () => this.platform.url('notifier'),
      basic('edge', ADMIN.username, ADMIN.password),
    );
    const subscribed = await expectAnswer(
      notifier('POST', '/v1/subscriptions', {
        scope: 'project',
        project_id: 'shop',
        kind: 'webhook',
        url: webhookUrl,
        format: 'cloudevents',
      }),
      [201],
      "subscribing project shop's VNF manager",
    );
    subscription.secret = subscribed.body.secret;
  }

  /** Starts the four loops of work. */
  start(): void {
    const loop = (name: string, body: () => Promise<void>) =>
      body().catch((error: unknown) => void this.incidents.push(`${name}: ${(error as Error).message}`));
    this.loops = [
      loop('agent rollouts', () => this.agentRollouts()),
      loop('maintenance sessions', () => this.maintenanceSessions()),
      loop('strategy rollouts', () => this.strategyRollouts()),
      loop('service upgrades', () => this.serviceUpgrades()),
    ];
  }

  /** Starts no more work, and waits until the items under way end (or `withinMs` passed). */
  async finish(withinMs: number): Promise<void> {
    this.stopping = true;
    const gaveUp = new AbortController();
    await Promise.race([
      Promise.all(this.loops),
      pause(withinMs, undefined, { signal: gaveUp.signal }).catch(() => undefined),
    ]);
    gaveUp.abort();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sampler);
    await this.vnfManager?.stop();
    await this.vnfBus?.close();
    await this.edge?.stop();
    await this.core?.stop();
  }

  /** Publishes agent package `version` once. */
  private async publish(version: string): Promise<void> {
    if (this.published.has(version)) return;
    await expectAnswer(
      this.root('POST', '/v1/agent-packages', undefined, {
        rawBody: await buildPackage({ version }),
        headers: { 'content-type': 'application/gzip' },
      }),
      // A retried call may find it published by the first attempt.
      [201, 409],
      `publishing agent package ${version}`,
    );
    this.published.add(version);
  }

  /** Publishes `edge.cache` at `version` for both arches. */
  private async publishCache(version: string): Promise<void> {
    for (const arch of ['amd64', 'arm64'])
      await expectAnswer(
        this.edgeAdmin('PUT', `/v1/orgs/edge/services/cache-${arch}-${version.replaceAll('.', '-')}`, {
          url: 'edge.cache',
          version,
          arch,
          runtime: {},
        }),
        [200, 201],
        `publishing service cache ${version} for ${arch}`,
      );
  }

  private cacheVersion(agent: SimulatedFleet['agents'][number]): string | undefined {
    return agent.runtime.actual().find((workload) => workload.deploymentPolicy === 'cache')?.service.version;
  }

  /**
   * Every 50 ms: each HA group of `edge` has a member running `edge.cache` (any version), and a
   * node moving to another version is progress of the service upgrade.
   */
  private sampleGroups(): void {
    const groups = new Map<string, SimulatedFleet['agents']>();
    for (const agent of this.edge.agents)
      groups.set(agent.haGroup!, [...(groups.get(agent.haGroup!) ?? []), agent]);
    const versions = new Map<string, string | undefined>();
    this.sampler = setInterval(() => {
      for (const [group, members] of groups)
        if (!members.some((agent) => this.cacheVersion(agent) !== undefined))
          this.outages.push(`${group} ran no edge.cache at ${new Date().toISOString()}`);
      for (const agent of this.edge.agents) {
        const version = this.cacheVersion(agent);
        if (versions.has(agent.node) && versions.get(agent.node) !== version)
          this.progress.mark('service-upgrade');
        versions.set(agent.node, version);
      }
    }, 50);
  }

  private begin(kind: WorkItem['kind'], id: string): WorkItem {
    const item: WorkItem = { kind, id, startedAt: Date.now(), outcome: 'open' };
    this.items.push(item);
    return item;
  }

  /** Ends `item`; a failure keeps the reason the platform gave, if it gave one. */
  private end(item: WorkItem, outcome: 'completed' | 'failed', reason?: string | null): void {
    Object.assign(item, { outcome, ...(reason ? { reason } : {}) });
  }

  /** Waits until `done` answers true. */
  private async until(done: () => Promise<boolean>): Promise<void> {
    while (!(await done())) await pause(POLL_MS);
  }

  /** Moves the edge fleet to the next version, again and again, through a management policy. */
  private async agentRollouts(): Promise<void> {
    const nodes = this.edge.agents.map((agent) => agent.node);
    let previous: string | undefined;
    for (let major = 2; !this.stopping; major++) {
      const version = `${major}.0.0`;
      await this.publish(version);
      // An agent follows one agent-upgrade policy at a time: the previous one goes first.
      if (previous)
        await expectAnswer(
          this.edgeAdmin('DELETE', `/v1/orgs/edge/management-policies/${previous}`),
          [200, 404],
          `deleting policy ${previous}`,
        );
      previous = `to-${major}`;
      const item = this.begin('agent-rollout', previous);
      await expectAnswer(
        this.edgeAdmin('PUT', `/v1/orgs/edge/management-policies/${previous}`, {
          enabled: true,
          nodes,
          agentUpgradePolicy: { atLeastVersion: version, start: 'now', duration: 3 },
        }),
        [200, 201],
        `adding policy ${previous}`,
      );
      await this.until(async () => this.edge.versions()[version] === nodes.length);
      this.end(item, 'completed');
    }
  }

  /** Takes two HA groups of the edge fleet through maintenance, then the next two, and so on. */
  private async maintenanceSessions(): Promise<void> {
    const groups = [...new Set(this.edge.agents.map((agent) => agent.haGroup!))].sort();
    for (let round = 0; !this.stopping; round++) {
      const chosen = [groups[round % groups.length], groups[(round + 1) % groups.length]];
      const hosts = this.edge.agents
        .filter((agent) => chosen.includes(agent.haGroup!))
        .map((agent) => agent.node);
      const started = await this.maintenance('POST', '/v1/maintenance', {
        hosts,
        host_action: { kind: 'simulated', seconds: 1 },
        max_parallel_hosts: 2,
        reply_timeout_seconds: REPLY_TIMEOUT_SECONDS,
      });
      let id: string;
      if (started.status === 201) id = started.body.session_id;
      else if (started.status === 409) {
        // A retried request whose first attempt was taken: that session is the one.
        const listed = await expectAnswer(
          this.maintenance('GET', '/v1/maintenance'),
          [200],
          'listing sessions',
        );
        id = (listed.body.items as { session_id: string; closed_at: string | null }[]).find(
          (session) => session.closed_at === null,
        )!.session_id;
      } else throw new Error(`starting a session: ${started.status} ${JSON.stringify(started.body)}`);
      const item = this.begin('maintenance', id);
      let seen = 0;
      await this.until(async () => {
        const view = (
          await expectAnswer(this.maintenance('GET', `/v1/maintenance/${id}`), [200], `reading session ${id}`)
        ).body;
        for (const entry of (view.timeline as SessionTimelineEntry[]).slice(seen))
          this.progress.mark('maintenance', Date.parse(entry.at));
        seen = view.timeline.length;
        item.session = { timeline: view.timeline, projects: view.projects, hosts: view.hosts };
        if (view.state === 'MAINTENANCE_DONE') this.end(item, 'completed');
        else if (view.state === 'MAINTENANCE_FAILED') this.end(item, 'failed', view.failure);
        // A session is closed once its hosts are given back: the next may take them.
        return item.outcome !== 'open' && view.closed_at !== null;
      });
    }
  }

  /** Rolls `edge.cache` to the next version through the edge fleet's HA groups, again and again. */
  private async serviceUpgrades(): Promise<void> {
    for (let minor = 1; !this.stopping; minor++) {
      const version = `1.${minor}.0`;
      const item = this.begin('service-upgrade', `edge.cache ${version}`);
      await this.publishCache(version);
      await this.until(async () => this.edge.agents.every((agent) => this.cacheVersion(agent) === version));
      this.end(item, 'completed');
    }
  }

  /** Rolls the core fleet's strategy to the next version, rollout after rollout. */
  private async strategyRollouts(): Promise<void> {
    for (let major = 2; !this.stopping; major++) {
      const version = `${major}.0.0`;
      await this.publish(version);
      const started = await this.orchestrator('POST', '/v1/rollouts', {
        strategy: 'deployment-strategy',
        version,
      });
      let rollout: { id: string; groups: { name: string; depends_on: string[] }[] };
      if (started.status === 201) rollout = started.body;
      else if (started.status === 409) {
        const listed = await expectAnswer(
          this.orchestrator('GET', '/v1/rollouts'),
          [200],
          'listing rollouts',
        );
        const running = (listed.body.items as { id: string; state: string }[]).find(
          (each) => each.state === 'running',
        )!;
        rollout = (
          await expectAnswer(
            this.orchestrator('GET', `/v1/rollouts/${running.id}`),
            [200],
            'reading a rollout',
          )
        ).body;
      } else throw new Error(`starting a rollout: ${started.status} ${JSON.stringify(started.body)}`);
      const item = this.begin('strategy-rollout', rollout.id);
      item.groups = rollout.groups.map(({ name, depends_on }) => ({ name, depends_on }));
      await this.until(async () => {
        const report = (
          await expectAnswer(
            this.orchestrator('GET', `/v1/rollouts/${rollout.id}`),
            [200],
            `reading rollout ${rollout.id}`,
          )
        ).body;
        if (report.state === 'completed') this.end(item, 'completed');
        else if (['failed', 'cancelled'].includes(report.state)) this.end(item, 'failed', report.reason);
        return item.outcome !== 'open';
      });
      // A failed rollout leaves the fleet on mixed versions: it is recorded, and this fleet rests.
      if (item.outcome === 'failed') break;
    }
  }
}
