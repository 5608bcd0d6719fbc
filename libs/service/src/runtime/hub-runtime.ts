/**
 * What a hub service runs beside its HTTP API, put together one way in every service: its client
 * of the exchange (signed in with the service's own credentials; absent without a password), the
 * parts every replica starts (bus consumers, request responders), started in the order added and
 * stopped in reverse, and one background work started after them and stopped after them: run by
 * the replica elected in Postgres only, or by every replica. It owns when things start and stop,
 * never what they do: the service builds its domain objects and hands over how to start them.
 */
import { LeaderElection, type LeaderLogger } from '@careen/persistence';
import { exchangeCredentials, ExchangeClient } from '../hub-client/exchange-client';
import { type MetricsRegistry } from '../metrics/metrics.registry';

/** The service's own account at the exchange, from its `…_EXCHANGE_USER` and `…_PASSWORD` settings. */
export interface ServiceLogin {
  /** `org/username`. */
  user: string;
  /** Unset, the service has no exchange client. */
  password: string | undefined;
  /** The setting that holds the password, named in the warning when it is unset. */
  passwordSetting: string;
  /** What the service cannot do without the exchange, said once at start; unset, nothing is said. */
  without?: string;
}

export interface HubRuntimeOptions {
  config: { CAREEN_EXCHANGE_URL: string; CAREEN_DATABASE_URL: string };
  login: ServiceLogin;
  logger: LeaderLogger;
  metrics: Pick<MetricsRegistry, 'trackLeadership'>;
}

/** A part once started: how it is stopped (a consumer's `stop`, a subscription's `unsubscribe`). */
export type StartedPart = { stop(): unknown } | { unsubscribe(): void };

/** Starts a part; several started together (an array) are stopped together. */
export type PartStarter = () =>
  StartedPart | readonly StartedPart[] | Promise<StartedPart | readonly StartedPart[]>;

interface BackgroundWork {
  readonly isLeader: boolean;
  start(): void;
  stop(): Promise<void>;
}

export class HubRuntime {
  /** The exchange as the service's own user; undefined without a password. */
  readonly exchange: ExchangeClient | undefined;
  private readonly starters: PartStarter[] = [];
  private started: (readonly StartedPart[])[] = [];
  private work: BackgroundWork | undefined;

  constructor(private readonly options: HubRuntimeOptions) {
    const credentials = exchangeCredentials(options.login.user, options.login.password);
    this.exchange = credentials && new ExchangeClient(options.config.CAREEN_EXCHANGE_URL, credentials);
  }

  /** Whether this replica leads now (false when the work runs on every replica, or there is none). */
  get isLeader(): boolean {
    return this.work?.isLeader ?? false;
  }

  /** Adds a part every replica starts, after those added before it, and stops before them. */
  part(start: PartStarter): this {
    this.starters.push(start);
    return this;
  }

  /**
   * `lead` runs while this replica holds the leader role `key` (exported as `careen_leader`);
   * replicas with the same key compete. It must finish soon after its signal aborts.
   */
  runWhileLeading(key: string, lead: (signal: AbortSignal) => Promise<void>): this {
    const election = new LeaderElection({
      databaseUrl: this.options.config.CAREEN_DATABASE_URL,
      key,
      logger: this.options.logger,
      lead,
    });
    this.options.metrics.trackLeadership(election);
    return this.setWork(election);
  }

  /** `run` runs on every replica until the runtime stops; it must finish soon after its signal aborts. */
  runOnEveryReplica(run: (signal: AbortSignal) => Promise<void>): this {
    return this.setWork(new EveryReplica(run));
  }

  /** Says what is missing without the exchange, starts the parts in order, then the work. */
  async start(): Promise<void> {
    const { login, logger } = this.options;
    if (!this.exchange && login.without !== undefined)
      logger.warn({ variable: login.passwordSetting }, `no exchange credentials: ${login.without}`);
    for (const start of this.starters) {
      const part = await start();
      this.started.push(isPartList(part) ? part : [part]);
    }
    this.work?.start();
  }

  /** Stops the parts started, the last first (those started together, together), then the work. */
  async stop(): Promise<void> {
    const started = this.started;
    this.started = [];
    for (const parts of started.reverse()) await Promise.all(parts.map(stopPart));
    await this.work?.stop();
  }

  private setWork(work: BackgroundWork): this {
    if (this.work) throw new Error('a hub runtime runs one background work');
    this.work = work;
    return this;
  }
}

class EveryReplica implements BackgroundWork {
  readonly isLeader = false;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly run: (signal: AbortSignal) => Promise<void>) {}

  start(): void {
    this.running ??= this.run(this.stopping.signal);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }
}

function isPartList(part: StartedPart | readonly StartedPart[]): part is readonly StartedPart[] {
  return Array.isArray(part);
}

async function stopPart(part: StartedPart): Promise<void> {
  if ('unsubscribe' in part) part.unsubscribe();
  else await part.stop();
}
