/**
 * Exactly one agbot replica at a time keeps the mirror and drives placement: it is elected in
 * Postgres, resyncs the mirror from the exchange, then consumes CAREEN_CHANGES (durable
 * `agbot-changes`) in stream order. A standby takes over within seconds when the leader dies.
 */
import { ExchangeChanged } from '@careen/contracts';
import { retryDelayMs, runConsumer, type BusConnection, type RunningConsumer } from '@careen/bus';
import { ProcessedMessages } from '@careen/persistence';
import {
  BUS,
  type ExchangeClient,
  HubRuntime,
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

/** Pauses after failed resyncs, the last repeating. */
const RESYNC_RETRY_MS = [1_000, 2_000, 5_000, 10_000];

@Injectable()
export class AgbotLeadership implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runtime: HubRuntime;

  constructor(
    @Inject(SERVICE_CONFIG) config: AgbotConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(BUS) private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly processed: ProcessedMessages,
    private readonly mirror: ExchangeMirror,
    @Inject(CHANGE_LISTENERS) private readonly listeners: ChangeListener[],
    @Inject(LEADER_TASKS) private readonly tasks: LeaderTask[],
    metrics: MetricsRegistry,
  ) {
    this.runtime = new HubRuntime({
      config,
      login: {
        user: config.CAREEN_AGBOT_EXCHANGE_USER,
        password: config.CAREEN_AGBOT_EXCHANGE_PASSWORD,
        passwordSetting: 'CAREEN_AGBOT_EXCHANGE_PASSWORD',
        without: 'the mirror follows the change stream only and no workloads are placed',
      },
      logger,
      metrics,
    }).runWhileLeading('careen:agbot:controller', (signal) => this.lead(signal, this.runtime.exchange));
  }

  get isLeader(): boolean {
    return this.runtime.isLeader;
  }

  onApplicationBootstrap(): Promise<void> {
    return this.runtime.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runtime.stop();
  }

  private async lead(signal: AbortSignal, exchange: ExchangeClient | undefined): Promise<void> {
    if (exchange) await this.resync(exchange, signal);
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
    const running = this.tasks.map((task) => task.run(signal, exchange));
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
        const delay = retryDelayMs(RESYNC_RETRY_MS, attempt + 1);
        this.logger.warn({ err: String(error), retryInMs: delay }, 'mirror resync failed; retrying');
        await pause(delay, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
