/**
 * One agent's work, the same for a real node and a simulated one: connect to the exchange
 * (registering when allowed and needed), follow the change feed, report the node's status
 * when it changes and at least once per status interval, keep the node's workloads
 * reconciled, and enact the management policies that apply, one at a time, resuming an
 * upgrade a restart interrupted.
 */
import { builtinNodeProperties } from '@careen/policy';
import { type JsonLogger } from '@careen/telemetry';
import { AgbotClient } from './agbot/agbot-client';
import { HaPermit } from './agbot/ha-permit';
import { Backoff } from './core/backoff';
import { type Clock, type RandomSource } from './core/clock';
import { hostFacts } from './core/node-facts';
import { StatusHeartbeat } from './core/status-heartbeat';
import { StatusReporter, type StatusObserver } from './core/status-reporter';
import { NmpPlanner } from './enactment/nmp-planner';
import { ExchangeClient, type RequestObserver } from './exchange/exchange-client';
import { type Change, type ManagementPolicy, type NodeView } from './exchange/exchange.types';
import { HttpError, requestJson } from './exchange/http-json';
import { type AgentMemory } from './state/agent-memory';
import { type InstallStrategy, type Restarter } from './upgrade/install-strategy';
import { PackageDownload } from './upgrade/package-download';
import { PackageVerifier } from './upgrade/package-verifier';
import { UpgradeRunner } from './upgrade/upgrade-runner';
import { type WorkloadRuntime } from './workloads/workload-runtime';

export interface AgentCoreOptions {
  exchangeUrl: string;
  agbotUrl?: string;
  /** Longest wait of one change-feed poll, in seconds. */
  pollSeconds: number;
  /** The node's status is reported at least this often, in seconds, even when unchanged. */
  statusSeconds: number;
  /** The version this agent runs when no package has been installed yet. */
  builtinVersion: string;
  strategy: InstallStrategy;
  runtime: WorkloadRuntime;
  downloadsDir: string;
  trustedKeys: readonly string[];
  downloadBytesPerSecond?: number;
  downloadAttempts?: number;
  /** Absent: the agent restarts in place (simulated agents). */
  restarter?: Restarter;
  /** Org user credentials to register the node with when the exchange does not know it. */
  registration?: { username: string; password: string };
  memory: AgentMemory;
  clock: Clock;
  random: RandomSource;
  logger: JsonLogger;
  observeRequests?: RequestObserver;
  observeStatuses?: StatusObserver;
  /** Sees every page of changes the agent reads from the feed, as it arrives. */
  observeChanges?: (changes: readonly Change[]) => void;
  retry?: { baseMs: number; maxMs: number };
}

export class AgentCore {
  readonly exchange: ExchangeClient;
  private readonly planner: NmpPlanner;
  private readonly runner: UpgradeRunner;
  private readonly reporter: StatusReporter;
  private readonly stopping = new AbortController();
  private pollAbort: AbortController | undefined;
  private node: NodeView | undefined;
  private packages: string[] = [];
  private running: string;
  private upgrading: Promise<void> | undefined;
  private heartbeat: Promise<void> | undefined;
  private restartPending = false;
  private exchangeReachable: boolean | undefined;
  private dirty = { node: true, workloads: true, packages: true };
  private reportedOnce = false;
  private caughtUpOnce = false;
  /** When the next upgrade of the last plan is due. */
  private nextDue: Date | undefined;
  /** updatedAt of node changes read from the feed, to tell our own status writes from others' changes. */
  private nodeChanges: unknown[] = [];

  constructor(private readonly options: AgentCoreOptions) {
    const { memory, clock, random, logger } = options;
    const { org, nodeId, token } = memory.state;
    if (!token) throw new Error('the agent has no node token');
    this.exchange = new ExchangeClient(
      options.exchangeUrl,
      { org, node: nodeId, token },
      clock,
      options.observeRequests,
    );
    this.running = options.builtinVersion;
    this.planner = new NmpPlanner(random);
    this.reporter = new StatusReporter(
      this.exchange,
      memory,
      () => ({
        agentVersion: {
          package: this.running,
          failed: memory.failedVersions[memory.failedVersions.length - 1] ?? null,
          ...memory.upgradeTimes,
        },
        workloads: options.runtime.actual(),
      }),
      clock,
      random,
      logger,
      this.stopping.signal,
      options.observeStatuses,
    );
    const agbot = options.agbotUrl
      ? new AgbotClient(options.agbotUrl, org, nodeId, this.exchange.tokens, options.observeRequests)
      : undefined;
    this.runner = new UpgradeRunner({
      download: new PackageDownload(this.exchange, options.downloadsDir, clock, random, {
        attempts: options.downloadAttempts ?? 5,
        bytesPerSecond: options.downloadBytesPerSecond,
        retry: options.retry,
      }),
      verifier: new PackageVerifier(options.trustedKeys),
      strategy: options.strategy,
      restarter: options.restarter ?? { restart: () => this.restartInPlace() },
      memory,
      reporter: this.reporter,
      clock,
      logger,
      agbot,
      permit: agbot ? new HaPermit(agbot, clock, random, options.retry) : undefined,
    });
    options.runtime.onChange(() => void this.reporter.node());
  }

  get version(): string {
    return this.running;
  }

  /** Whether the agent has read the feed to its head since it started. */
  get caughtUp(): boolean {
    return this.caughtUpOnce;
  }

  get haGroup(): string | null {
    return this.node?.haGroup ?? null;
  }

  /** Runs until stop(); never throws for anything the exchange or agbot does. */
  async run(): Promise<void> {
    const { logger, memory } = this.options;
    const signal = this.stopping.signal;
    this.running = (await this.options.strategy.activeVersion()) ?? this.options.builtinVersion;
    await this.connect();
    if (signal.aborted) return this.shutDown();
    this.heartbeat = new StatusHeartbeat(
      this.reporter,
      this.options.clock,
      this.options.random,
      this.options.statusSeconds * 1000,
    ).run(signal);
    if (memory.upgrade) {
      logger.info({ upgrade: memory.upgrade.version, phase: memory.upgrade.phase }, 'resuming an upgrade');
      this.startUpgradeLane(() => this.runner.proceed(this.haGroup, signal));
    }
    const backoff = this.backoff();
    let caughtUp = false;
    this.caughtUpOnce = false;
    while (!signal.aborted) {
      try {
        const cursor = memory.state.changeCursor ?? (await this.readAfresh());
        await this.refresh();
        const wait = caughtUp ? this.pollWaitSeconds() : 0;
        // A fresh controller per poll, aborted by stop() or a wake-up; nothing piles up on `signal`.
        this.pollAbort = new AbortController();
        if (signal.aborted) break;
        const page = await this.exchange.changes(cursor, wait, this.pollAbort.signal);
        this.reachable(true);
        backoff.reset();
        if (page.changes.length > 0) this.options.observeChanges?.(page.changes);
        this.apply(page.changes);
        memory.state.changeCursor = page.lastId;
        if (page.changes.length > 0 || !caughtUp) await memory.persist();
        caughtUp ||= page.changes.length === 0;
        this.caughtUpOnce = caughtUp;
        if (caughtUp) await this.enact();
      } catch (error) {
        if (signal.aborted) break;
        if (this.pollAbort?.signal.aborted && !(error instanceof HttpError)) continue;
        if (error instanceof HttpError && error.status === 410) {
          logger.warn(
            { cursor: memory.state.changeCursor },
            'change feed moved past our cursor; reading afresh',
          );
          memory.state.changeCursor = undefined;
          continue;
        }
        this.reachable(false, error);
        await this.options.clock.sleep(backoff.next(), signal);
      }
    }
    await this.shutDown();
  }

  stop(): void {
    this.stopping.abort();
    this.pollAbort?.abort();
  }

  private async shutDown(): Promise<void> {
    await this.heartbeat;
    await this.upgrading?.catch(() => undefined);
    await this.options.runtime.stopAll();
  }

  /** Gets a token for the node, registering it first when it is unknown and that is allowed. */
  private async connect(): Promise<void> {
    const backoff = this.backoff();
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        await this.exchange.tokens.bearer();
        this.reachable(true);
        return;
      } catch (error) {
        if (error instanceof HttpError && error.status === 401 && this.options.registration) {
          await this.register().catch((failure: unknown) => this.reachable(false, failure));
          continue;
        }
        this.reachable(false, error);
        await this.options.clock.sleep(backoff.next(), signal);
      }
    }
  }

  private async register(): Promise<void> {
    const { org, nodeId, token } = this.options.memory.state;
    const { username, password } = this.options.registration!;
    await requestJson(new URL(`/v1/orgs/${org}/nodes/${nodeId}`, this.options.exchangeUrl), {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`${org}/${username}:${password}`).toString('base64')}` },
      // Registered with the built-in properties, so policies can select it by them.
      body: {
        token,
        policy: { properties: builtinNodeProperties(hostFacts(this.running)), constraints: [] },
      },
    });
    this.options.logger.info({ node: nodeId }, 'node registered');
  }

  /** Reads what the feed said has changed. */
  private async refresh(): Promise<void> {
    if (this.nodeChanges.length > 0) {
      // Our own status write may still be answering: wait, so its change is known as ours.
      await this.reporter.settled();
      if (this.nodeChanges.some((updatedAt) => !this.reporter.isOwnUpdate(updatedAt))) {
        this.dirty.node = true;
        this.dirty.workloads = true;
      }
      this.nodeChanges = [];
    }
    if (this.dirty.node) {
      this.node = await this.exchange.getNode();
      this.dirty.node = false;
      if (!this.reportedOnce) {
        this.reportedOnce = true;
        void this.reporter.node();
      }
    }
    if (this.dirty.packages) {
      this.packages = (await this.exchange.listPackages()).map((pkg) => pkg.version);
      this.dirty.packages = false;
    }
    if (this.dirty.workloads) {
      this.dirty.workloads = false;
      await this.options.runtime.apply(await this.exchange.desiredWorkloads());
      void this.reporter.node();
    }
  }

  private apply(changes: readonly Change[]): void {
    const { memory } = this.options;
    const policies = (memory.state.policies ??= {});
    for (const change of changes) {
      switch (change.resource) {
        case 'managementPolicy':
          if (change.operation === 'deleted') delete policies[change.resourceId];
          else if (change.data) policies[change.resourceId] = change.data as unknown as ManagementPolicy;
          break;
        case 'agentPackage':
          this.dirty.packages = true;
          break;
        case 'node':
          if (change.operation === 'deleted')
            this.options.logger.warn({}, 'this node was deleted from the exchange');
          else this.nodeChanges.push(change.data?.updatedAt);
          break;
        case 'managementStatus':
          if (change.data?.status === 'reset') this.reset(String(change.data.nmp));
          break;
        default:
          break;
      }
    }
  }

  /** An admin asked for a retry: the policy is enacted again, even at a version that failed. */
  private reset(nmp: string): void {
    const record = this.options.memory.records[nmp];
    if (!record) return;
    if (record.target) this.options.memory.forgetFailure(record.target);
    record.status = 'reset';
    this.options.logger.info({ nmp }, 'reset by an admin; the policy will be enacted again');
  }

  /**
   * Starts following the feed without its history (a new agent, or one the feed's retention
   * left behind): the head first, then the state the feed would have told, so a change made
   * in between is read again rather than missed. Reading history instead would cost the
   * exchange a scan of the whole log for every agent that joins.
   */
  private async readAfresh(): Promise<number> {
    const { memory } = this.options;
    const head = await this.exchange.changeHead();
    const policies = await this.exchange.managementPolicies();
    memory.state.policies = Object.fromEntries(policies.map((policy) => [policy.name, policy]));
    this.dirty = { node: true, workloads: true, packages: true };
    memory.state.changeCursor = head;
    await memory.persist();
    return head;
  }

  /** Writes what the plan says and starts the next upgrade when its moment has come. */
  private async enact(): Promise<void> {
    const { memory, clock } = this.options;
    if (!this.node) return;
    const plan = this.planner.plan({
      node: this.node,
      policies: Object.values(memory.state.policies ?? {}),
      packages: this.packages,
      running: this.running,
      failed: memory.failedVersions,
      records: memory.records,
      inProgress: memory.upgrade?.nmp,
      now: clock.now(),
    });
    memory.state.enactments = plan.records;
    await memory.persist();
    for (const report of plan.reports) {
      await this.reporter.management(report.nmp, {
        status: report.status,
        ...(report.version ? { version: report.version } : {}),
        ...(report.error ? { error: report.error } : {}),
        // A pause is no end: the enactment goes on once resumed.
        ...(report.status === 'paused' ? {} : { endTime: clock.now().toISOString() }),
      });
    }
    if (this.upgrading || memory.upgrade) return;
    for (const waiting of plan.waiting) {
      const record = memory.records[waiting.nmp]!;
      if (record.status === 'waiting') continue;
      record.status = 'waiting';
      await memory.persist();
      await this.reporter.management(waiting.nmp, {
        status: 'waiting',
        version: waiting.target,
        fromVersion: this.running,
        startTime: waiting.moment.toISOString(),
      });
    }
    const next = plan.next;
    this.nextDue = next?.moment;
    if (!next || next.moment.getTime() > clock.now().getTime()) return;
    this.nextDue = undefined;
    const record = memory.records[next.nmp]!;
    this.startUpgradeLane(async () =>
      this.runner.begin(
        { nmp: next.nmp, lastUpdated: record.lastUpdated, version: next.target, action: next.action },
        await this.options.strategy.activeVersion(),
        this.haGroup,
        this.stopping.signal,
      ),
    );
  }

  private startUpgradeLane(work: () => Promise<void>): void {
    this.upgrading = (async () => {
      await work();
      // A simulated agent restarts in place: carry on with the saved phase on the new version.
      while (this.restartPending && !this.stopping.signal.aborted) {
        this.restartPending = false;
        await this.runner.proceed(this.haGroup, this.stopping.signal);
      }
    })()
      .catch((error: unknown) =>
        this.options.logger.error({ error: (error as Error).message }, 'upgrade stopped'),
      )
      .finally(() => {
        this.upgrading = undefined;
        void this.reporter.node();
        this.pollAbort?.abort();
      });
  }

  private async restartInPlace(): Promise<void> {
    this.running = (await this.options.strategy.activeVersion()) ?? this.options.builtinVersion;
    this.restartPending = true;
  }

  /** A poll waits no longer than until the next upgrade is due. */
  private pollWaitSeconds(): number {
    const due = this.nextDue;
    if (!due || this.upgrading || this.options.memory.upgrade) return this.options.pollSeconds;
    const seconds = Math.ceil((due.getTime() - this.options.clock.now().getTime()) / 1000);
    return Math.min(this.options.pollSeconds, Math.max(0, seconds));
  }

  private backoff(): Backoff {
    return new Backoff(
      this.options.random,
      this.options.retry?.baseMs ?? 500,
      this.options.retry?.maxMs ?? 30_000,
    );
  }

  private reachable(reachable: boolean, error?: unknown): void {
    if (reachable === this.exchangeReachable) return;
    this.exchangeReachable = reachable;
    const exchange = new URL(this.options.exchangeUrl).origin;
    if (reachable) this.options.logger.info({ exchange }, 'exchange reachable');
    else
      this.options.logger.warn(
        { exchange, error: error instanceof Error ? error.message : String(error) },
        'exchange unreachable; will keep trying',
      );
  }
}
