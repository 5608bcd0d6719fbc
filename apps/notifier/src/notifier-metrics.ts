/** What the notifier reports to Prometheus, on the service's registry. */
import { type MetricsRegistry } from '@careen/service';
import { Counter, Gauge, Histogram } from 'prom-client';
import { type DataSource } from 'typeorm';

export class NotifierMetrics {
  private readonly outcomes: Counter<'outcome'>;
  private readonly attempts: Histogram;
  private readonly lag: Histogram<'outcome'>;

  constructor(metrics: MetricsRegistry, dataSource: DataSource) {
    const registers = [metrics.registry];
    this.outcomes = new Counter({
      name: 'careen_notifier_delivery_attempts_total',
      help: 'Webhook calls, by outcome: delivered, retry (failed, tried again later) or dead (failed for good)',
      labelNames: ['outcome'],
      registers,
    });
    this.attempts = new Histogram({
      name: 'careen_notifier_delivery_attempts',
      help: 'Attempts a delivery took, observed when it is delivered or dead',
      buckets: [1, 2, 3, 5, 8, 13, 21],
      registers,
    });
    this.lag = new Histogram({
      name: 'careen_notifier_delivery_lag_seconds',
      help: 'From the event published to the call that delivered it (or failed for good)',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
      registers,
    });
    new Gauge({
      name: 'careen_notifier_deliveries',
      help: 'Deliveries by state: pending (owed now or retrying), dead (dead-lettered, listed for redelivery)',
      labelNames: ['state'],
      registers,
      async collect() {
        const rows: { state: string; count: string }[] = await dataSource.query(
          `SELECT state, count(*) AS count FROM notifier.deliveries WHERE state <> 'delivered' GROUP BY state`,
        );
        this.reset();
        for (const state of ['pending', 'dead'])
          this.set({ state }, Number(rows.find((row) => row.state === state)?.count ?? 0));
      },
    });
  }

  observe(outcome: 'delivered' | 'retry' | 'dead', attempts: number, lagMs: number): void {
    this.outcomes.inc({ outcome });
    if (outcome !== 'retry') {
      this.attempts.observe(attempts);
      this.lag.observe({ outcome }, lagMs / 1000);
    }
  }
}
