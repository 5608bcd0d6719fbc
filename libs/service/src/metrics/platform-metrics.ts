/**
 * The metrics every service exports about the platform under it: its database connections
 * (pool-metrics.ts), the backlog of its outbox
 * and the age of its oldest unpublished event (services that relay one), and for each durable
 * consumer of its bus connection the messages not yet delivered to it, those delivered and not
 * yet acknowledged, the redeliveries and the dead letters by reason. Values are read when
 * Prometheus scrapes, each source once per scrape.
 */
import { type BusConnection } from '@careen/bus';
import { type ConsumerInfo } from '@nats-io/jetstream';
import { Counter, Gauge } from 'prom-client';
import { type DataSource } from 'typeorm';
import { type MetricsRegistry } from './metrics.registry';
import { exportPoolMetrics } from './pool-metrics';
import { scrapeRead } from './scrape-read';

export interface PlatformMetricsSources {
  dataSource: DataSource;
  bus: BusConnection;
  /** The schema whose outbox this process relays, if it relays one. */
  outboxSchema?: string;
}

/**
 * The outbox's events not yet published and the age of the oldest: those not yet numbered, and
 * those numbered and not yet published, each read through the partial index that holds only
 * them. A scrape reads the backlog, not the day of published rows the outbox keeps.
 */
export function outboxBacklogStatement(schema: string): string {
  return `SELECT coalesce(sum(n), 0)::int AS backlog, coalesce(extract(epoch FROM now() - min(oldest)), 0)::float AS oldest
            FROM (SELECT count(*) AS n, min(created_at) AS oldest FROM "${schema}".outbox WHERE seq IS NULL
                  UNION ALL
                  SELECT count(*), min(created_at) FROM "${schema}".outbox
                   WHERE published_at IS NULL AND seq IS NOT NULL) AS parts`;
}

export class PlatformMetrics {
  constructor(metrics: MetricsRegistry, { dataSource, bus, outboxSchema }: PlatformMetricsSources) {
    const registers = [metrics.registry];
    exportPoolMetrics(metrics, dataSource);
    if (outboxSchema) {
      const outbox = scrapeRead(async () => {
        const [row] = (await dataSource.query(outboxBacklogStatement(outboxSchema))) as {
          backlog: number;
          oldest: number;
        }[];
        return row ?? { backlog: 0, oldest: 0 };
      });
      new Gauge({
        name: 'careen_outbox_backlog',
        help: 'Events written to the outbox and not yet published',
        registers,
        async collect() {
          this.set((await outbox()).backlog);
        },
      });
      new Gauge({
        name: 'careen_outbox_oldest_unpublished_seconds',
        help: 'Age of the oldest event written to the outbox and not yet published (0 when none)',
        registers,
        async collect() {
          this.set((await outbox()).oldest);
        },
      });
    }
    const consumerInfo = scrapeRead(() =>
      Promise.all(
        bus.stats.consumers().map(async (stats) => ({
          stats,
          info: await bus.jsm.consumers.info(stats.stream, stats.name).catch(() => undefined),
        })),
      ),
    );
    /** A gauge of each durable consumer's `pick` of its info from the server. */
    const consumerGauge = (name: string, help: string, pick: (info: ConsumerInfo) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['consumer', 'stream'],
        registers,
        async collect() {
          this.reset();
          for (const { stats, info } of await consumerInfo())
            if (info) this.set({ consumer: stats.name, stream: stats.stream }, pick(info));
        },
      });
    consumerGauge(
      'careen_bus_consumer_pending',
      'Messages of the stream not yet delivered to the durable consumer (its lag)',
      (info) => info.num_pending,
    );
    consumerGauge(
      'careen_bus_consumer_ack_pending',
      'Messages delivered to the durable consumer and not yet acknowledged',
      (info) => info.num_ack_pending,
    );
    new Counter({
      name: 'careen_bus_consumer_redeliveries_total',
      help: 'Messages delivered again to the durable consumer after an attempt failed or timed out',
      labelNames: ['consumer'],
      registers,
      collect() {
        this.reset();
        for (const stats of bus.stats.consumers()) this.inc({ consumer: stats.name }, stats.redeliveries);
      },
    });
    new Counter({
      name: 'careen_bus_dead_letters_total',
      help: 'Messages the durable consumer dead-lettered, by reason: invalid-message or handler-failed',
      labelNames: ['consumer', 'reason'],
      registers,
      collect() {
        this.reset();
        for (const stats of bus.stats.consumers())
          for (const [reason, count] of Object.entries(stats.deadLetters))
            this.inc({ consumer: stats.name, reason }, count);
      },
    });
  }
}
