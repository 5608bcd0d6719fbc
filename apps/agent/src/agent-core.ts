/**
 * One agent's work, the same for a real node and a simulated one: connect to the exchange
 * (registering when allowed and needed), follow the change feed (feed/), report the node's
 * status when it changes and at least once per status interval, keep the node's workloads
 * reconciled, and hand the management policies that apply to the enactor (enactment/).
 */
import { ApiError, dataOf, type Exchange, serviceClient } from '@careen/api-client';
import { builtinNodeProperties } from '@careen/policy';
import { type JsonLogger } from '@careen/telemetry';
import { AgbotClient } from './agbot/agbot-client';
import { HaPermit } from './agbot/ha-permit';
import { Backoff } from './core/backoff';
import { type Clock, type RandomSource } from './core/clock';
import { hostFacts } from './core/node-facts';
import { pollWait } from './core/poll-wait';
import { StatusReporter, type StatusObserver } from './core/status-reporter';
import { Enactor } from './enactment/enactor';
import { NmpPlanner } from './enactment/nmp-planner';
import { ExchangeClient, type RequestObserver } from './exchange/exchange-client';
import { HubConnections } from './exchange/hub-connections';
import { type FeedChange, type NodeView } from './exchange/exchange.types';
import { ChangeFollower } from './feed/change-follower';
import { type FeedNews } from './feed/feed-news';
import { type AgentMemory } from './state/agent-memory';
import { type InstallStrategy, type Restarter } from './upgrade/install-strategy';
import { PackageDownload } from './upgrade/package-download';
import { PackageVerifier } from './upgrade/package-verifier';
import { UpgradeRunner } from './upgrade/upgrade-runner';
import { type WorkloadRuntime } from './workloads/workload-runtime';

export interface AgentCoreOptions {
  exchangeUrl: string;
  agbotUrl?: string;
  /**
   * Longest wait of one change-feed poll, in seconds. Each poll is the node's heartbeat; each
   * wait is drawn up to a fifth shorter, so that a fleet started together polls spread out.
   */
  pollSeconds: number;
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
  /** The agent's connections to the hub (closed when it stops); default a pair of its own. */
  connections?: HubConnections;
  observeStatuses?: StatusObserver;
  /** Sees every page of changes the agent reads from the feed, as it arrives. */
  observeChanges?: (changes: readonly FeedChange[]) => void;
  retry?: { baseMs: number; maxMs: number };
}

export class AgentCore {
  readonly exchange: ExchangeClient;
  private readonly feed: ChangeFollower;
  private readonly enactor: Enactor;
  private readonly reporter: StatusReporter;
  private readonly stopping = new AbortController();
  private readonly connections: HubConnections;
  private pollAbort: AbortController | undefined;
  private node: NodeView | undefined;
  private packages: string[] = [];
  private exchangeReachable: boolean | undefined;
  private dirty = { node: true, workloads: true, packages: true };
  private reportedOnce = false;
  private caughtUpOnce = false;
  /** updatedAt of node changes read from the feed, to tell our own status writes from others' changes. */
  private nodeChanges: string[] = [];

  constructor(private readonly options: AgentCoreOptions) {
    const { memory, clock, random, logger } = options;
    const { org, nodeId, token } = memory.state;
    if (!token) throw new Error('the agent has no node token');
    this.connections = options.connections ?? new HubConnections();
    this.exchange = new ExchangeClient(
      options.exchangeUrl,
      { org, node: nodeId, token },
      clock,
      options.observeRequests,
      this.connections,
    );
    this.feed = new ChangeFollower(this.exchange, memory, logger);
    this.reporter = new StatusReporter(
      this.exchange,
      memory,
      () => ({
        agentVersion: {
          package: this.enactor.version,
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
      ? new AgbotClient(
          options.agbotUrl,
          org,
          nodeId,
          this.exchange.tokens,
          options.observeRequests,
          this.connections.send,
        )
      : undefined;
    const runner = new UpgradeRunner({
      download: new PackageDownload(this.exchange, options.downloadsDir, clock, random, {
        attempts: options.downloadAttempts ?? 5,
        bytesPerSecond: options.downloadBytesPerSecond,
        retry: options.retry,
      }),
      verifier: new PackageVerifier(options.trustedKeys),
      strategy: options.strategy,
      restarter: options.restarter ?? { restart: () => this.enactor.restartInPlace() },
      memory,
      reporter: this.reporter,
      clock,
      logger,
      permit: agbot
        ? new HaPermit(agbot, clock, random, { retry: options.retry, stopping: this.stopping.signal })
        : undefined,
    });
    this.enactor = new Enactor({
      planner: new NmpPlanner(random),
      runner,
      reporter: this.reporter,
      strategy: options.strategy,
      memory,
      clock,
      logger,
      builtinVersion: options.builtinVersion,
      haGroup: () => this.haGroup,
      onUpgradeEnd: () => {
        void this.reporter.node();
        this.pollAbort?.abort();
      },
      signal: this.stopping.signal,
    });
    options.runtime.onChange(() => void this.reporter.node());
  }

  get version(): string {
    return this.enactor.version;
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
    const signal = this.stopping.signal;
    await this.enactor.learnVersion();
    await this.connect();
    if (signal.aborted) return this.shutDown();
    this.enactor.resume();
    const backoff = this.backoff();
    let caughtUp = false;
    this.caughtUpOnce = false;
    while (!signal.aborted) {
      try {
        if (this.feed.lost) {
          await this.feed.readAfresh();
          this.dirty = { node: true, workloads: true, packages: true };
        }
        await this.refresh();
        const wait = caughtUp
          ? this.enactor.waitSeconds(pollWait(this.options.pollSeconds, this.options.random))
          : 0;
        // A fresh controller per poll, aborted by stop() or a wake-up; nothing piles up on `signal`.
        this.pollAbort = new AbortController();
        if (signal.aborted) break;
        const page = await this.feed.poll(wait, this.pollAbort.signal);
        this.reachable(true);
        backoff.reset();
        if (page.changes.length > 0) this.options.observeChanges?.(page.changes);
        this.take(page.news);
        if (this.feed.lost) continue;
        caughtUp ||= page.changes.length === 0;
        this.caughtUpOnce = caughtUp;
        if (caughtUp && this.node) await this.enactor.enact(this.node, this.packages);
      } catch (error) {
        if (signal.aborted) break;
        if (this.pollAbort?.signal.aborted && !(error instanceof ApiError)) continue;
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
    await this.enactor.settled();
    await this.options.runtime.stopAll();
    await this.connections.close();
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
        if (error instanceof ApiError && error.status === 401 && this.options.registration) {
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
    await dataOf(
      serviceClient<Exchange.paths>(this.options.exchangeUrl, {
        retries: 0,
        fetch: this.connections.send,
      }).PUT('/v1/orgs/{org}/nodes/{id}', {
        params: { path: { org, id: nodeId } },
        headers: {
          authorization: `Basic ${Buffer.from(`${org}/${username}:${password}`).toString('base64')}`,
        },
        // Registered with the built-in properties, so policies can select it by them.
        body: {
          token,
          policy: {
            properties: builtinNodeProperties(hostFacts(this.enactor.version)).map((property) => ({
              ...property,
              value: typeof property.value === 'object' ? [...property.value] : property.value,
            })),
            constraints: [],
          },
        },
      }),
    );
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
      // Done only once applied: a read cut off is tried again on the next turn, not left
      // until another change to the node comes (a cordoned host may never get one).
      await this.options.runtime.apply(await this.exchange.desiredWorkloads());
      this.dirty.workloads = false;
      void this.reporter.node();
    }
  }

  /** Acts on what the feed told beyond the policies it keeps. */
  private take(news: FeedNews): void {
    if (news.packagesChanged) this.dirty.packages = true;
    if (news.nodeDeleted) this.options.logger.warn({}, 'this node was deleted from the exchange');
    this.nodeChanges.push(...news.nodeUpdates);
    for (const nmp of news.resets) this.enactor.reset(nmp);
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
