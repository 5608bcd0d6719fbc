/** What the maintenance service reports to Prometheus, on the service's registry. */
import { type MetricsRegistry } from '@careen/service';
import { Counter, Gauge, Histogram } from 'prom-client';
import { type DataSource } from 'typeorm';

export type ReplyOutcome = 'taken' | 'refused';

/** What the sessions tell the metrics; the sessions know nothing of Prometheus. */
export interface ReplyObserver {
  reply(
    via: 'http' | 'bus',
    answer: 'ack' | 'nack' | 'invalid',
    outcome: ReplyOutcome,
    latencySeconds?: number,
  ): void;
}

export class MaintenanceMetrics implements ReplyObserver {
  private readonly replies: Counter<'via' | 'answer' | 'outcome'>;
  private readonly latency: Histogram;

  constructor(metrics: MetricsRegistry, dataSource: DataSource) {
    const registers = [metrics.registry];
    this.replies = new Counter({
      name: 'careen_maintenance_replies_total',
      help: 'Project replies, by how they came, what they said and whether the session took them',
      labelNames: ['via', 'answer', 'outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'careen_maintenance_reply_latency_seconds',
      help: 'From a project asked to its reply taken',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300],
      registers,
    });
    new Gauge({
      name: 'careen_maintenance_sessions',
      help: 'Sessions by state (finished ones included)',
      labelNames: ['state'],
      registers,
      async collect() {
        const rows: { state: string; count: string }[] = await dataSource.query(
          'SELECT state, count(*) AS count FROM maintenance_session.sessions GROUP BY state',
        );
        this.reset();
        for (const row of rows) this.set({ state: row.state }, Number(row.count));
      },
    });
    new Gauge({
      name: 'careen_maintenance_hosts_in_maintenance',
      help: 'Hosts of open sessions that are out of service now (emptied, their host action under way)',
      registers,
      async collect() {
        const [row] = (await dataSource.query(
          `SELECT count(*) AS count FROM maintenance_session.sessions s, jsonb_each(s.progress->'hosts') h
            WHERE s.closed_at IS NULL AND h.value->>'phase' = 'in-maintenance'`,
        )) as { count: string }[];
        this.set(Number(row?.count ?? 0));
      },
    });
  }

  reply(
    via: 'http' | 'bus',
    answer: 'ack' | 'nack' | 'invalid',
    outcome: ReplyOutcome,
    latencySeconds?: number,
  ): void {
    this.replies.inc({ via, answer, outcome });
    if (latencySeconds !== undefined) this.latency.observe(latencySeconds);
  }
}
