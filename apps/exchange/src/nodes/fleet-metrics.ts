/**
 * What the exchange reports about the fleet, read from its nodes when Prometheus scrapes: nodes
 * by org and connectivity (online: polled within OFFLINE_AFTER_SECONDS; offline: not since;
 * unreported: never), by org and agent version, and those cordoned or in maintenance.
 */
import { MetricsRegistry, scrapeRead } from '@careen/service';
import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';

/** A node silent this long counts as offline: the agbot's default of the same name. */
export const OFFLINE_AFTER_SECONDS = 120;

interface FleetRow {
  org: string;
  connectivity: 'online' | 'offline' | 'unreported';
  agent_version: string;
  cordoned: boolean;
  in_maintenance: boolean;
  nodes: number;
}

@Injectable()
export class FleetMetrics {
  constructor(metrics: MetricsRegistry, dataSource: DataSource) {
    const registers = [metrics.registry];
    // Every gauge below shows a part of one query.
    const fleet = scrapeRead(
      async () =>
        (await dataSource.query(
          `SELECT org,
                CASE WHEN status IS NULL THEN 'unreported'
                     WHEN (status->>'lastHeartbeat')::timestamptz > now() - make_interval(secs => $1) THEN 'online'
                     ELSE 'offline' END AS connectivity,
                coalesce(status->'agentVersion'->>'package', 'unknown') AS agent_version,
                NOT schedulable AS cordoned, maintenance IS NOT NULL AS in_maintenance, count(*)::int AS nodes
           FROM exchange.nodes GROUP BY 1, 2, 3, 4, 5`,
          [OFFLINE_AFTER_SECONDS],
        )) as FleetRow[],
    );
    /** A gauge of node counts by `labels`, summed over the rows `counts` keeps. */
    const gauge = <L extends string>(
      name: string,
      help: string,
      labels: L[],
      counts: (row: FleetRow) => boolean = () => true,
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames: labels,
        registers,
        async collect() {
          this.reset();
          for (const row of await fleet())
            if (counts(row))
              this.inc(
                Object.fromEntries(
                  labels.map((label) => [label, String(row[label as keyof FleetRow])]),
                ) as Record<L, string>,
                row.nodes,
              );
        },
      });
    gauge('careen_exchange_nodes', 'Nodes by org and connectivity: online, offline or unreported', [
      'org',
      'connectivity',
    ]);
    gauge('careen_exchange_nodes_by_agent_version', 'Nodes by org and the agent version they report', [
      'org',
      'agent_version',
    ]);
    gauge(
      'careen_exchange_nodes_cordoned',
      'Nodes taken out of scheduling, by org',
      ['org'],
      (row) => row.cordoned,
    );
    gauge(
      'careen_exchange_nodes_in_maintenance',
      'Nodes in a maintenance session, by org',
      ['org'],
      (row) => row.in_maintenance,
    );
  }
}
