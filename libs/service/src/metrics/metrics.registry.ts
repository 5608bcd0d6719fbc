/** The service's Prometheus registry: default process metrics plus HTTP request timings. */
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Gauges of prom-client's defaults named like counters, which Prometheus's own checks refuse
 * (`promtool check metrics`); their sums are `sum(nodejs_active_handles)` and so on.
 */
const COUNTER_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Something one replica at a time holds: a leader election, an outbox relay. */
export interface LeaderRole {
  readonly key: string;
  readonly isLeader: boolean;
}

export class MetricsRegistry {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Each leader role this process competes for. */
  private readonly roles: LeaderRole[] = [];

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    for (const name of COUNTER_NAMED_GAUGES) this.registry.removeSingleMetric(name);
    this.httpDuration = new Histogram({
      name: 'careen_http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30],
      registers: [this.registry],
    });
    const roles = this.roles;
    new Gauge({
      name: 'careen_leader',
      help: 'Whether this replica holds the leader role (1) or stands by for it (0)',
      labelNames: ['role'],
      registers: [this.registry],
      collect() {
        for (const role of roles) this.set({ role: role.key }, role.isLeader ? 1 : 0);
      },
    });
  }

  /** Exports, as `careen_leader{role}`, whether this replica holds `role` when scraped. */
  trackLeadership(role: LeaderRole): void {
    this.roles.push(role);
  }
}
