/**
 * Exactly one agbot replica at a time keeps the mirror and drives placement: it is elected in
 * Postgres, resyncs the mirror from the exchange, then consumes CAREEN_CHANGES (durable
 * `agbot-changes`) in stream order. A standby takes over within seconds when the leader dies.
 */
import { ExchangeChanged } from '@careen/contracts';
import { runConsumer, type BusConnection, type RunningConsumer } from '@careen/bus';
import { LeaderElection, ProcessedMessages } from '@careen/persistence';
import {
  BUS,
  ExchangeClient,
  exchangeCredentials,
  MetricsRegistry,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
  untilAborted,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as pause } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { CHANGE_LISTENERS, type ChangeListener } from '../mirror/change-listener';
import { latestPublishedChangeId } from '../mirror/change-stream-head';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { MirrorChangeHandler } from '../mirror/mirror-change-handler';
import { MirrorResync } from '../mirror/mirror-resync';
import { LEADER_TASKS, type LeaderTask } from './leader-task';

const RESYNC_RETRY_MS = [1_000, 2_000, 5_000, 10_000];

@Injectable()
export class AgbotLeadership implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly election: LeaderElection;
  private readonly exchange: ExchangeClient | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(BUS) private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly processed: ProcessedMessages,
    private readonly mirror: ExchangeMirror,
    @Inject(CHANGE_LISTENERS) private readonly listeners: ChangeListener[],
    @Inject(LEADER_TASKS) private readonly tasks: LeaderTask[],
    metrics: MetricsRegistry,
  ) {
    const credentials = exchangeCredentials(
      config.CAREEN_AGBOT_EXCHANGE_USER,
      config.CAREEN_AGBOT_EXCHANGE_PASSWORD,
    );
    this.exchange = credentials ? new ExchangeClient(config.CAREEN_EXCHANGE_URL, credentials) : undefined;
    this.election = new LeaderElection({
      databaseUrl: config.CAREEN_DATABASE_URL,
      key: 'careen:agbot:controller',
      logger,
      lead: (signal) => this.lead(signal),
    });
    metrics.trackLeadership(this.election);
  }

  get isLeader(): boolean {
    return this.election.isLeader;
  }

  onApplicationBootstrap(): void {
    if (!this.exchange) {
      this.logger.warn(
        { variable: 'CAREEN_AGBOT_EXCHANGE_PASSWORD' },
        'no exchange credentials: the mirror follows the change stream only and no workloads are placed',
      );
    }
    this.election.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.election.stop();
  }

  private async lead(signal: AbortSignal): Promise<void> {
    if (this.exchange) await this.resync(this.exchange, signal);
    if (signal.aborted) return;
    const handler = new MirrorChangeHandler(this.processed, this.mirror, this.listeners);
    const consumer: RunningConsumer = await runConsumer({
      bus: this.bus,
      service: 'agbot',
      purpose: 'changes',
      event: ExchangeChanged,
      batchHandler: (messages) =>
        handler.handleAll(
          messages.map((message) => ({ eventId: message.attributes.id, change: message.payload })),
        ),
      maxAckPending: 256,
      logger: this.logger,
    });
    const running = this.tasks.map((task) => task.run(signal, this.exchange));
    // Leadership may have ended while the consumer was starting.
    await untilAborted(signal);
    await consumer.stop();
    await Promise.allSettled(running);
  }

  private async resync(exchange: ExchangeClient, signal: AbortSignal): Promise<void> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const counts = await new MirrorResync(this.dataSource, this.mirror, exchange, () =>
          latestPublishedChangeId(this.bus),
        ).run();
        this.logger.info(counts, 'mirror resynced from the exchange');
        return;
      } catch (error) {
        const delay = RESYNC_RETRY_MS[Math.min(attempt, RESYNC_RETRY_MS.length - 1)]!;
        this.logger.warn({ err: String(error), retryInMs: delay }, 'mirror resync failed; retrying');
        await pause(delay, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
