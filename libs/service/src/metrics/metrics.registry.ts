/** The service's Prometheus registry: default process metrics plus HTTP request timings. */
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * Gauges of prom-client's defaults named like counters, which Prometheus's own checks refuse
 * (`promtool check metrics`); their sums are `sum(nodejs_active_handles)` and so on.
 */
const COUNTER_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export class MetricsRegistry {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

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
  }
}
