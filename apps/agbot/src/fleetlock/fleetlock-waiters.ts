/**
 * Who waits for a FleetLock reboot slot: a client refused one is noted until it is granted one,
 * gives its slot back, or stops asking. What it must never do: hold up or change a grant (it is
 * written after the semaphore answered, and only read for people).
 */
import { SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface FleetLockWaiter {
  node: string;
  haGroup: string;
  /** When it was first refused since it last held a slot. */
  since: Date;
  lastRefusedAt: Date;
}

/**
 * A client refused longer ago than this is taken to have stopped asking: Zincati asks again every
 * few minutes while it waits to reboot.
 */
export const WAITING_WINDOW_SECONDS = 15 * 60;

@Injectable()
export class FleetLockWaiters {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  /** Notes a refusal; what cannot be noted is logged, and the refusal stands as it was. */
  async refused(org: string, node: string, haGroup: string): Promise<void> {
    await this.noting('refused', org, node, async () => {
      // Clients that stopped asking long ago go as others are noted, so the table stays small.
      await this.dataSource.query(
        'DELETE FROM agbot.fleetlock_waiters WHERE last_refused_at < clock_timestamp() - make_interval(secs => $1)',
        [WAITING_WINDOW_SECONDS * 4],
      );
      await this.dataSource.query(
        `INSERT INTO agbot.fleetlock_waiters (org, node, ha_group, first_refused_at, last_refused_at)
       VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp())
       ON CONFLICT (org, node) DO UPDATE
         SET ha_group = excluded.ha_group,
             last_refused_at = excluded.last_refused_at,
             -- A client that had stopped asking starts a new wait.
             first_refused_at = CASE
               WHEN agbot.fleetlock_waiters.last_refused_at < clock_timestamp() - make_interval(secs => $4)
               THEN excluded.first_refused_at ELSE agbot.fleetlock_waiters.first_refused_at END`,
        [org, node, haGroup, WAITING_WINDOW_SECONDS],
      );
    });
  }

  /** The client holds a slot, or gave it back: it waits no more. */
  async left(org: string, node: string): Promise<void> {
    await this.noting('left', org, node, () =>
      this.dataSource.query('DELETE FROM agbot.fleetlock_waiters WHERE org = $1 AND node = $2', [org, node]),
    );
  }

  private async noting(
    what: string,
    org: string,
    node: string,
    write: () => Promise<unknown>,
  ): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.logger.warn({ org, node, err: String(error) }, `could not note a FleetLock client ${what}`);
    }
  }

  /** The org's clients still waiting, oldest wait first. */
  async waiting(org: string): Promise<FleetLockWaiter[]> {
    const rows = (await this.dataSource.query(
      `SELECT node, ha_group, first_refused_at, last_refused_at FROM agbot.fleetlock_waiters
        WHERE org = $1 AND last_refused_at >= clock_timestamp() - make_interval(secs => $2)
        ORDER BY first_refused_at, node`,
      [org, WAITING_WINDOW_SECONDS],
    )) as { node: string; ha_group: string; first_refused_at: Date; last_refused_at: Date }[];
    return rows.map((row) => ({
      node: row.node,
      haGroup: row.ha_group,
      since: row.first_refused_at,
      lastRefusedAt: row.last_refused_at,
    }));
  }
}
