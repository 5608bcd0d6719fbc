/**
 * The gauges of a service's database connections: how many are in use (by a statement or an
 * open transaction) and idle, and how many statements and transactions wait for one because
 * every connection is in use. Requests that wait there are slow for no reason Postgres shows:
 * a full pool, not a slow database. Read from pg's pool when Prometheus scrapes.
 */
import { Gauge } from 'prom-client';
import { type DataSource } from 'typeorm';
import { type PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { type MetricsRegistry } from './metrics.registry';

/** What pg's Pool counts of its connections and of the clients waiting for one. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export function exportPoolMetrics(metrics: MetricsRegistry, dataSource: DataSource): void {
  const registers = [metrics.registry];
  // The pool TypeORM's Postgres driver keeps; none before the data source is initialized.
  const pool = () => (dataSource.driver as PostgresDriver).master as PoolCounts | undefined;
  new Gauge({
    name: 'careen_db_pool_connections',
    help: 'Database connections of this process by state: in-use (by a statement or a transaction) or idle',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = pool();
      this.set({ state: 'in-use' }, counts ? counts.totalCount - counts.idleCount : 0);
      this.set({ state: 'idle' }, counts?.idleCount ?? 0);
    },
  });
  new Gauge({
    name: 'careen_db_pool_waiting_requests',
    help: 'Statements and transactions waiting for a database connection, every one being in use',
    registers,
    collect() {
      this.set(pool()?.waitingCount ?? 0);
    },
  });
}
