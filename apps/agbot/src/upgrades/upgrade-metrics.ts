/** What the upgrade semaphore reports to Prometheus, on the service's registry. */
import { UPGRADE_HOLDER_KINDS, type UpgradeHolderKind, type UpgradeReleaseReason } from '@careen/contracts';
import { type MetricsRegistry } from '@careen/service';
import { Counter, Gauge, Histogram } from 'prom-client';
import { type DataSource } from 'typeorm';
import { type GroupReleases } from './group-releases';

export class UpgradeMetrics {
  private readonly grants: Counter<'holder'>;
  private readonly renewals: Counter<'holder'>;
  private readonly refusals: Counter<'holder'>;
  private readonly releases: Counter<'holder' | 'reason'>;
  private readonly blocks: Counter<'holder' | 'reason'>;
  private readonly holderAge: Histogram<'holder'>;

  constructor(metrics: MetricsRegistry, dataSource: DataSource, releases: GroupReleases) {
    const registers = [metrics.registry];
    this.grants = new Counter({
      name: 'careen_agbot_upgrade_grants_total',
      help: 'Upgrade semaphore slots granted (renewals not counted)',
      labelNames: ['holder'],
      registers,
    });
    this.renewals = new Counter({
      name: 'careen_agbot_upgrade_renewals_total',
      help: 'Leases renewed by a holder asking again',
      labelNames: ['holder'],
      registers,
    });
    this.refusals = new Counter({
      name: 'careen_agbot_upgrade_refusals_total',
      help: 'Asks the semaphore refused because the group was busy (a waiting request asks again on each wake)',
      labelNames: ['holder'],
      registers,
    });
    this.blocks = new Counter({
      name: 'careen_disruption_blocked_total',
      help: 'Asks the disruption gate refused though the HA group had room, by reason (freeze, outside-window, gate, budget)',
      labelNames: ['holder', 'reason'],
      registers,
    });
    this.releases = new Counter({
      name: 'careen_agbot_upgrade_releases_total',
      help: 'Upgrade semaphore slots released, by reason',
      labelNames: ['holder', 'reason'],
      registers,
    });
    this.holderAge = new Histogram({
      name: 'careen_agbot_upgrade_holder_age_seconds',
      help: 'How long a slot was held, observed when it is released',
      labelNames: ['holder'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200],
      registers,
    });
    new Gauge({
      name: 'careen_agbot_upgrade_waiting_requests',
      help: 'Requests waiting (with ?wait=) for their HA group slot now',
      registers,
      collect() {
        this.set(releases.waiting);
      },
    });
    new Gauge({
      name: 'careen_agbot_upgrade_oldest_holder_age_seconds',
      help: 'Age of the oldest slot held now (0 when none): a stuck upgrade shows here',
      labelNames: ['holder'],
      registers,
      async collect() {
        const rows: { kind: UpgradeHolderKind; age: string }[] = await dataSource.query(
          `SELECT holder_kind AS kind, extract(epoch FROM clock_timestamp() - min(granted_at))::text AS age
           FROM agbot.upgrade_grants GROUP BY holder_kind`,
        );
        for (const kind of UPGRADE_HOLDER_KINDS) {
          this.set({ holder: kind }, Number(rows.find((row) => row.kind === kind)?.age ?? 0));
        }
      },
    });
  }

  granted(kind: UpgradeHolderKind): void {
    this.grants.inc({ holder: kind });
  }

  renewed(kind: UpgradeHolderKind): void {
    this.renewals.inc({ holder: kind });
  }

  refused(kind: UpgradeHolderKind): void {
    this.refusals.inc({ holder: kind });
  }

  blocked(kind: UpgradeHolderKind, reason: string): void {
    this.blocks.inc({ holder: kind, reason });
  }

  released(kind: UpgradeHolderKind, reason: UpgradeReleaseReason, heldSeconds: number): void {
    this.releases.inc({ holder: kind, reason });
    this.holderAge.observe({ holder: kind }, Math.max(0, heldSeconds));
  }
}
