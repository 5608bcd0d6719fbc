/**
 * Reads every event that tells of a change or an action, from every service's stream, into the
 * audit trail: the exchange's changes, the agbot's slot grants, releases and halts, the
 * orchestrator's rollouts, and the actions services tell of on CAREEN_AUDIT. Each replica reads
 * the same durable consumers, in batches; what the consumers bring within a fifth of a second is
 * stored in one transaction and acknowledged after it, so a crash anywhere stores each event
 * once, late rather than never. After each store the new records are exported on the bus. It
 * also prunes records past retention, hourly.
 */
import {
  EventPublisher,
  runConsumer,
  type BusConnection,
  type BusMessage,
  type RunningConsumer,
} from '@careen/bus';
import {
  AuditAction,
  ExchangeChanged,
  OrchestratorRolloutEvent,
  UpgradeGranted,
  UpgradeHalted,
  UpgradeReleased,
  type EventDefinition,
} from '@careen/contracts';
import { BUS, SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type ExchangeConfig } from '../exchange.config';
import { actionEntry, changeEntry, rolloutEntry, slotEntry, type AuditEntry } from './audit-entry';
import { AuditExporter } from './audit-exporter';
import { AuditLogStore } from './audit-log.store';

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** How long entries gather before they are stored together, and how many at most. */
const GATHER_MS = 200;
const GATHER_MAX = 4_000;
/** How often what is not exported yet (after a crash, say) is looked for. */
const EXPORT_EVERY_MS = 5_000;

interface Gathered {
  entries: AuditEntry[];
  stored: Promise<void>;
  store: () => void;
  fail: (error: unknown) => void;
}

interface Source<P extends object, A extends readonly string[]> {
  purpose: string;
  event: EventDefinition<P, A>;
  entry: (message: BusMessage<P>) => AuditEntry | undefined;
}

const source = <P extends object, A extends readonly string[]>(
  purpose: string,
  event: EventDefinition<P, A>,
  entry: (message: BusMessage<P>) => AuditEntry | undefined,
): Source<P, A> => ({ purpose, event, entry });

/** The events the trail reads, each by a consumer of its own. */
const SOURCES = [
  source('audit-changes', ExchangeChanged, changeEntry),
  source('audit-slot-granted', UpgradeGranted, slotEntry('granted')),
  source('audit-slot-released', UpgradeReleased, slotEntry('released')),
  source('audit-slot-halted', UpgradeHalted, slotEntry('halted')),
  source('audit-rollouts', OrchestratorRolloutEvent, rolloutEntry),
  source('audit-actions', AuditAction, actionEntry),
] as const;

@Injectable()
export class AuditCollector implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumers: RunningConsumer[] = [];
  private timers: NodeJS.Timeout[] = [];
  private readonly exporter: AuditExporter;
  private gathering: Gathered | undefined;
  /** The last store under way: stores run one at a time. */
  private storing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: AuditLogStore,
    @Inject(BUS) private readonly bus: BusConnection,
    publisher: EventPublisher,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {
    this.exporter = new AuditExporter(store, publisher);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.consumers = await Promise.all(
      SOURCES.map((each) => this.read(each as Source<object, readonly string[]>)),
    );
    this.timers = [
      setInterval(() => void this.prune(), PRUNE_EVERY_MS),
      setInterval(() => void this.export(), EXPORT_EVERY_MS),
    ];
    for (const timer of this.timers) timer.unref();
    void this.prune();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    await this.storing;
    await this.exporter.done.catch(() => undefined);
  }

  /** Stores `entries` with what else gathers meanwhile; resolves once they are stored. */
  private gather(entries: AuditEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    if (!this.gathering) {
      let store!: () => void;
      let fail!: (error: unknown) => void;
      const stored = new Promise<void>((resolve, reject) => {
        store = resolve;
        fail = reject;
      });
      const gathered: Gathered = { entries: [], stored, store, fail };
      this.gathering = gathered;
      setTimeout(() => this.flush(gathered), GATHER_MS);
    }
    const gathered = this.gathering;
    gathered.entries.push(...entries);
    if (gathered.entries.length >= GATHER_MAX) this.flush(gathered);
    return gathered.stored;
  }

  private flush(gathered: Gathered): void {
    if (this.gathering !== gathered) return;
    this.gathering = undefined;
    // A store is many events' and no one request's: outside the trace of the first event.
    this.storing = this.storing.then(() =>
      context.with(ROOT_CONTEXT, async () => {
        try {
          await this.store.append(gathered.entries);
          gathered.store();
        } catch (error) {
          gathered.fail(error);
          return;
        }
        void this.export();
      }),
    );
  }

  private async export(): Promise<void> {
    try {
      await this.exporter.run();
    } catch (error) {
      this.logger.warn({ err: error }, 'could not export audit records; trying again shortly');
    }
  }

  private read<P extends object, A extends readonly string[]>({
    purpose,
    event,
    entry,
  }: Source<P, A>): Promise<RunningConsumer> {
    return runConsumer({
      bus: this.bus,
      service: 'exchange',
      purpose,
      event,
      maxAckPending: 2048,
      maxBatch: 512,
      logger: this.logger,
      batchHandler: (messages) => this.gather(messages.flatMap((message) => entry(message) ?? [])),
    });
  }

  private async prune(): Promise<void> {
    try {
      const removed = await this.store.prune(
        new Date(Date.now() - this.config.CAREEN_AUDIT_RETENTION_DAYS * DAY_MS),
      );
      if (removed > 0) this.logger.info({ removed }, 'pruned audit records past retention');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not prune the audit trail; trying again in an hour');
    }
  }
}
