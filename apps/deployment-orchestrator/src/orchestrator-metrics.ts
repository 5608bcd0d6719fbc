/**
 * What the orchestrator reports to Prometheus: rollouts and single-node upgrades by state, the
 * nodes of unfinished rollouts by their state, and how long each group's phases took.
 */
import { type MetricsRegistry } from '@careen/service';
import { Gauge, Histogram } from 'prom-client';
import { type DataSource } from 'typeorm';

/** What the driver tells the metrics; the driver knows nothing of Prometheus. */
export interface PhaseObserver {
  phaseEnded(phase: 'prepare' | 'deploy', seconds: number): void;
}

export class OrchestratorMetrics implements PhaseObserver {
  private readonly phases: Histogram<'phase'>;

  constructor(metrics: MetricsRegistry, dataSource: DataSource) {
    const registers = [metrics.registry];
    this.phases = new Histogram({
      name: 'careen_orchestrator_phase_duration_seconds',
      help: "From a group's phase sent to its nodes to the last of them answering",
      labelNames: ['phase'],
      buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 7200],
      registers,
    });
    const byState = (name: string, help: string, table: string) =>
      new Gauge({
        name,
        help,
        labelNames: ['state'],
        registers,
        async collect() {
          const rows: { state: string; count: number }[] = await dataSource.query(
            `SELECT state, count(*)::int AS count FROM deployment_orchestrator.${table} GROUP BY state`,
          );
          this.reset();
          for (const row of rows) this.set({ state: row.state }, row.count);
        },
      });
    byState('careen_orchestrator_rollouts', 'Rollouts by state (finished ones included)', 'rollouts');
    byState('careen_orchestrator_upgrades', 'Single-node upgrades by state (the whole history)', 'upgrades');
    new Gauge({
      name: 'careen_orchestrator_rollout_nodes',
      help: 'Nodes of unfinished rollouts by their state: not started, prepared, success, failure',
      labelNames: ['state'],
      registers,
      async collect() {
        const rows: { state: string; count: number }[] = await dataSource.query(
          `SELECT n.value->>'state' AS state, count(*)::int AS count
             FROM deployment_orchestrator.rollouts r, jsonb_each(r.progress->'nodes') n
            WHERE r.finished_at IS NULL GROUP BY 1`,
        );
        this.reset();
        for (const row of rows) this.set({ state: row.state }, row.count);
      },
    });
  }

  phaseEnded(phase: 'prepare' | 'deploy', seconds: number): void {
    this.phases.observe({ phase }, seconds);
  }
}
