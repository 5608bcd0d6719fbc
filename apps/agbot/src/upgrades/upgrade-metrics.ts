/** What the upgrade semaphore reports to Prometheus, on the service's registry. */
import { UPGRADE_HOLDER_KINDS, type UpgradeHolderKind, type UpgradeReleaseReason } from '@careen/contracts';
import { type MetricsRegistry } from '@careen/service';
import { Counter, Gauge, Histogram } from 'prom-client';
import { type DataSource } from 'typeorm';
import { type GroupReleases } from './group-releases';
import { type GrantKey } from './upgrade-grant';

/** How long a node the gate refused counts as waiting on it without asking again. */
const GATED_FOR_MS = 60_000;

export class UpgradeMetrics {
  private readonly grants: Counter<'holder'>;
  private readonly renewals: Counter<'holder'>;
  private readonly refusals: Counter<'holder'>;
  private readonly releases: Counter<'holder' | 'reason'>;
  private readonly blocks: Counter<'holder' | 'reason'>;
  private readonly holderAge: Histogram<'holder'>;
  /** Each node's last refusal by the gate, by `org/node/kind`, until it asks and is not refused. */
  private readonly gated = new Map<string, { holder: UpgradeHolderKind; reason: string; at: number }>();

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
      help: 'Asks the disruption gate refused though the HA group had room, by reason (freeze, outside-window, busy, gate, soak, budget)',
      labelNames: ['holder', 'reason'],
      registers,
    });
    const gated = this.gated;
    new Gauge({
      name: 'careen_disruption_blocked',
      help: 'Nodes the disruption gate holds back now, by reason: their last ask (within the last minute, on this replica) was refused by it',
      labelNames: ['holder', 'reason'],
      registers,
      collect() {
        this.reset();
        const since = Date.now() - GATED_FOR_MS;
        for (const [key, { holder, reason, at }] of gated) {
          if (at < since) gated.delete(key);
          else this.inc({ holder, reason });
        }
      },
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

  /** The gate refused the node's ask. */
  blocked(key: GrantKey, reason: string): void {
    this.blocks.inc({ holder: key.kind, reason });
    this.gated.set(gatedKey(key), { holder: key.kind, reason, at: Date.now() });
  }

  /** The node asked and the gate did not hold it back (granted, or its group was busy). */
  notGated(key: GrantKey): void {
    if (this.gated.size > 0) this.gated.delete(gatedKey(key));
  }

  released(kind: UpgradeHolderKind, reason: UpgradeReleaseReason, heldSeconds: number): void {
    this.releases.inc({ holder: kind, reason });
    this.holderAge.observe({ holder: kind }, Math.max(0, heldSeconds));
  }
}

function gatedKey(key: GrantKey): string {
  return `${key.org}/${key.node}/${key.kind}`;
}
