/**
 * The HA groups a policy's failed members keep halted. A member whose status for the policy is
 * unhealthy (failed, rolling back or rollback-failed) halts its group in the agbot until it is
 * healthy again or reset; removing the policy does not end that, since the member is still down.
 * Read before the removal, which takes the statuses with it.
 */
import { UNHEALTHY_STATUSES } from '@careen/contracts';
import { type EntityManager } from 'typeorm';

export interface HaltedMember {
  haGroup: string;
  node: string;
  status: string;
  error: string | null;
}

export async function haltedMembers(
  manager: EntityManager,
  org: string,
  nmp: string,
): Promise<HaltedMember[]> {
  const rows: { ha_group: string; node: string; status: string; error: string | null }[] =
    await manager.query(
      `SELECT n.ha_group, s.node, s.status, s.error
     FROM exchange.management_statuses AS s
     JOIN exchange.nodes AS n ON n.org = s.org AND n.id = s.node
     WHERE s.org = $1 AND s.nmp = $2 AND s.status = ANY($3) AND n.ha_group IS NOT NULL
     ORDER BY n.ha_group, s.node`,
      [org, nmp, UNHEALTHY_STATUSES],
    );
  return rows.map((row) => ({ haGroup: row.ha_group, node: row.node, status: row.status, error: row.error }));
}
