import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { ACQUIRE_UPGRADE_SLOT_V1, RELEASE_UPGRADE_SLOT_V1 } from './1764000100000-upgrade-grants';

/**
 * HA-group halts and stopped policies in the upgrade semaphore (docs/architecture.md, invariant 1: no member
 * starts while a peer is failed and unhealthy).
 *
 * A halted slot is an agent-upgrade slot whose holder failed and is not healthy again: it has no
 * lease end (`halted_at` set; the lease is ignored), its holder's own release does not free it,
 * and it blocks every peer as any agent-upgrade slot does. The holder may still use it (asking
 * for another policy moves the halt to that policy); only a healthy status, an admin's reset,
 * the node leaving the group or being deleted end it.
 *
 * A grant for a management policy that the mirror shows disabled or paused is refused
 * (`policy-stopped`); a renewal of a slot already held is not, so nodes already installing
 * finish or roll back.
 *
 * The functions are those of the upgrade-grants migration with these rules added; see there for
 * how they lock and record.
 */
const SLOT_COLUMNS = `org text, node text, holder_kind text, ha_group text, management_policy text,
  granted_at timestamptz, lease_expires_at timestamptz, halted_at timestamptz, halt_error text`;
const SLOT_FIELDS = [
  'org',
  'node',
  'holder_kind',
  'ha_group',
  'management_policy',
  'granted_at',
  'lease_expires_at',
  'halted_at',
  'halt_error',
];
const slotOf = (row: string) => SLOT_FIELDS.map((column) => `(${row}).${column}`).join(', ');
const RELEASED_COLUMNS = (reason: string) =>
  `${SLOT_FIELDS.map((column) => `r.${column}`).join(', ')}, ${reason}, r.released_at`;

/**
 * The grant and release functions with halts; exported so that a later migration's down() can
 * restore them. A halted slot is released only when asked for explicitly (p_halted_too): never
 * by its lease, nor by its holder's own release.
 */
export const RELEASE_UPGRADE_SLOT_V2 = `
      CREATE FUNCTION agbot.release_upgrade_slot(
        p_org text, p_node text, p_kind text, p_reason text, p_events jsonb,
        p_only_expired boolean DEFAULT false,
        p_only_policy text DEFAULT NULL,
        p_only_if_group_is_not boolean DEFAULT false,
        p_not_group text DEFAULT NULL,
        p_halted_too boolean DEFAULT false
      ) RETURNS TABLE (${SLOT_COLUMNS}, released_at timestamptz)
      LANGUAGE plpgsql
      AS $$
      #variable_conflict use_column
      DECLARE
        v_grant agbot.upgrade_grants;
        v_at timestamptz;
      BEGIN
        DELETE FROM agbot.upgrade_grants AS g
        WHERE g.org = p_org AND g.node = p_node AND g.holder_kind = p_kind
          AND (NOT p_only_expired OR (g.lease_expires_at <= clock_timestamp() AND g.halted_at IS NULL))
          AND (p_only_policy IS NULL OR g.management_policy = p_only_policy)
          AND (NOT p_only_if_group_is_not OR g.ha_group IS DISTINCT FROM p_not_group)
          AND (p_halted_too OR g.halted_at IS NULL)
        RETURNING g.* INTO v_grant;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        INSERT INTO agbot.upgrade_grant_history
          (org, node, holder_kind, ha_group, management_policy, event, reason, granted_at)
        VALUES (v_grant.org, v_grant.node, v_grant.holder_kind, v_grant.ha_group,
                v_grant.management_policy, 'released', p_reason, v_grant.granted_at)
        RETURNING at INTO v_at;
        PERFORM agbot.append_upgrade_event(v_grant, 'released', p_events,
          jsonb_build_object('reason', p_reason, 'releasedAt', agbot.iso_time(v_at)));
        RETURN QUERY SELECT ${slotOf('v_grant')}, v_at;
      END
      $$`;

export const ACQUIRE_UPGRADE_SLOT_V2 = `
      CREATE FUNCTION agbot.acquire_upgrade_slot(
        p_org text, p_node text, p_kind text, p_policy text,
        p_lease_seconds integer, p_fleetlock_slots integer, p_events jsonb
      ) RETURNS TABLE (
        row_kind text, outcome text, semaphore_group text, ${SLOT_COLUMNS},
        reason text, released_at timestamptz
      )
      LANGUAGE plpgsql
      AS $$
      #variable_conflict use_column
      DECLARE
        v_group text;
        v_stale agbot.upgrade_grants;
        v_own agbot.upgrade_grants;
        v_blocker agbot.upgrade_grants;
        v_slot agbot.upgrade_grants;
        v_reason text;
        v_fleetlock_holders integer;
        v_now timestamptz;
      BEGIN
        SELECT n.ha_group INTO v_group FROM agbot.nodes AS n WHERE n.org = p_org AND n.id = p_node FOR SHARE;
        IF NOT FOUND THEN
          RETURN QUERY SELECT 'answer', 'unknown-node', NULL::text, ${slotOf('NULL::agbot.upgrade_grants')},
            NULL::text, NULL::timestamptz;
          RETURN;
        END IF;
        PERFORM pg_advisory_xact_lock(agbot.upgrade_lock_key(p_org, coalesce(v_group, 'node:' || p_node)));

        FOR v_stale IN
          SELECT * FROM agbot.upgrade_grants AS g
          WHERE g.org = p_org AND (g.node = p_node OR g.ha_group = v_group)
            AND ((g.lease_expires_at <= clock_timestamp() AND g.halted_at IS NULL)
                 OR g.ha_group IS DISTINCT FROM v_group)
          ORDER BY g.node, g.holder_kind
        LOOP
          v_reason := CASE WHEN v_stale.ha_group IS DISTINCT FROM v_group THEN 'left-group' ELSE 'lease-expired' END;
          RETURN QUERY
            SELECT 'released', NULL::text, v_group, ${RELEASED_COLUMNS('v_reason')}
            FROM agbot.release_upgrade_slot(v_stale.org, v_stale.node, v_stale.holder_kind, v_reason, p_events,
                                            v_reason = 'lease-expired', NULL, false, NULL, true) AS r;
        END LOOP;

        SELECT * INTO v_own FROM agbot.upgrade_grants AS g
        WHERE g.org = p_org AND g.node = p_node AND g.holder_kind = p_kind;
        IF FOUND AND v_own.halted_at IS NOT NULL THEN
          -- A halted holder keeps its slot whatever it asks for; the halt follows its policy.
          -- The lease means nothing while halted; it is set so the holder renews at its pace.
          UPDATE agbot.upgrade_grants AS g
          SET management_policy = p_policy,
              lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => p_lease_seconds)
          WHERE g.org = p_org AND g.node = p_node AND g.holder_kind = p_kind
          RETURNING g.* INTO v_slot;
          RETURN QUERY SELECT 'answer', 'renewed', v_group, ${slotOf('v_slot')}, NULL::text, NULL::timestamptz;
          RETURN;
        END IF;
        IF FOUND THEN
          IF p_kind = 'agent-upgrade' AND v_own.management_policy IS DISTINCT FROM p_policy THEN
            -- Only one policy runs on a node at a time: asking for another one replaces the slot.
            RETURN QUERY
              SELECT 'released', NULL::text, v_group, ${RELEASED_COLUMNS("'released'::text")}
              FROM agbot.release_upgrade_slot(p_org, p_node, p_kind, 'released', p_events) AS r;
          ELSE
            -- The holder asking again renews its lease, unless a release took the slot meanwhile.
            UPDATE agbot.upgrade_grants AS g
            SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => p_lease_seconds)
            WHERE g.org = p_org AND g.node = p_node AND g.holder_kind = p_kind
            RETURNING g.* INTO v_slot;
            IF FOUND THEN
              RETURN QUERY SELECT 'answer', 'renewed', v_group, ${slotOf('v_slot')}, NULL::text, NULL::timestamptz;
              RETURN;
            END IF;
          END IF;
        END IF;

        -- A new grant for a policy the exchange has stopped (as mirrored here) is refused.
        IF p_kind = 'agent-upgrade' AND EXISTS (
          SELECT 1 FROM agbot.mirrored_resources AS m
          WHERE m.org = p_org AND m.resource = 'managementPolicy' AND m.id = p_policy
            AND (coalesce((m.data ->> 'enabled')::boolean, false) = false
                 OR coalesce((m.data ->> 'paused')::boolean, false))
        ) THEN
          RETURN QUERY SELECT 'answer', 'policy-stopped', v_group, ${slotOf('NULL::agbot.upgrade_grants')},
            NULL::text, NULL::timestamptz;
          RETURN;
        END IF;

        -- Other members' slots, oldest first: an agent upgrade needs the group free, a reboot
        -- needs no agent upgrade in it and a free FleetLock slot. A node's own slots never block
        -- it. A halted member is named first: it is why the group waits.
        SELECT * INTO v_blocker FROM agbot.upgrade_grants AS g
        WHERE g.org = p_org AND g.ha_group = v_group AND g.node <> p_node
        ORDER BY (g.halted_at IS NOT NULL) DESC, (g.holder_kind = 'agent-upgrade') DESC, g.granted_at, g.node
        LIMIT 1;
        IF FOUND THEN
          SELECT count(DISTINCT g.node) INTO v_fleetlock_holders FROM agbot.upgrade_grants AS g
          WHERE g.org = p_org AND g.ha_group = v_group AND g.node <> p_node AND g.holder_kind = 'fleetlock';
          IF v_blocker.holder_kind = 'agent-upgrade' OR p_kind = 'agent-upgrade'
              OR v_fleetlock_holders >= p_fleetlock_slots THEN
            IF v_blocker.holder_kind <> 'agent-upgrade' THEN
              SELECT * INTO v_blocker FROM agbot.upgrade_grants AS g
              WHERE g.org = p_org AND g.ha_group = v_group AND g.node <> p_node
              ORDER BY g.granted_at, g.node
              LIMIT 1;
            END IF;
            RETURN QUERY SELECT 'answer', 'refused', v_group, ${slotOf('v_blocker')}, NULL::text, NULL::timestamptz;
            RETURN;
          END IF;
        END IF;

        v_now := date_trunc('milliseconds', clock_timestamp());
        INSERT INTO agbot.upgrade_grants AS g
          (org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at)
        VALUES (p_org, p_node, p_kind, v_group, p_policy, v_now, v_now + make_interval(secs => p_lease_seconds))
        RETURNING g.* INTO v_slot;
        INSERT INTO agbot.upgrade_grant_history
          (org, node, holder_kind, ha_group, management_policy, event, granted_at)
        VALUES (p_org, p_node, p_kind, v_group, p_policy, 'granted', v_now);
        PERFORM agbot.append_upgrade_event(v_slot, 'granted', p_events, '{}'::jsonb);
        RETURN QUERY SELECT 'answer', 'granted', v_group, ${slotOf('v_slot')}, NULL::text, NULL::timestamptz;
      END
      $$`;

export class UpgradeHalts1764100200000 implements MigrationInterface {
  name = 'UpgradeHalts1764100200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE agbot.upgrade_grants
        ADD COLUMN halted_at timestamptz,
        ADD COLUMN halt_error text`);
    await runner.query(
      'ALTER TABLE agbot.upgrade_grant_history DROP CONSTRAINT upgrade_grant_history_event_check',
    );
    await runner.query(`
      ALTER TABLE agbot.upgrade_grant_history
        ADD CONSTRAINT upgrade_grant_history_event_check CHECK (event IN ('granted', 'released', 'halted'))`);
    await runner.query('DROP FUNCTION agbot.acquire_upgrade_slot');
    await runner.query('DROP FUNCTION agbot.release_upgrade_slot');

    await runner.query(RELEASE_UPGRADE_SLOT_V2);
    await runner.query(ACQUIRE_UPGRADE_SLOT_V2);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP FUNCTION agbot.acquire_upgrade_slot');
    await runner.query('DROP FUNCTION agbot.release_upgrade_slot');
    await runner.query("DELETE FROM agbot.upgrade_grant_history WHERE event = 'halted'");
    await runner.query(
      'ALTER TABLE agbot.upgrade_grant_history DROP CONSTRAINT upgrade_grant_history_event_check',
    );
    await runner.query(`
      ALTER TABLE agbot.upgrade_grant_history
        ADD CONSTRAINT upgrade_grant_history_event_check CHECK (event IN ('granted', 'released'))`);
    await runner.query('ALTER TABLE agbot.upgrade_grants DROP COLUMN halted_at, DROP COLUMN halt_error');
    await runner.query(RELEASE_UPGRADE_SLOT_V1);
    await runner.query(ACQUIRE_UPGRADE_SLOT_V1);
  }
}
