import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The HA-group upgrade semaphore: who holds a slot now (agent upgrades and FleetLock reboots
 * share it), every grant and release that ever happened, in the order the group's advisory lock
 * let them happen, and the functions that grant and release (docs/architecture.md,
 * invariant 1).
 *
 * A grant is one call of `acquire_upgrade_slot`, so one round trip: it share-locks the node's
 * mirror row (its group cannot change under it), takes the semaphore's transaction-scoped
 * advisory lock, releases slots whose lease ran out or whose group is no longer the node's, then
 * renews, grants or refuses. Each statement of a plpgsql function reads a fresh snapshot, so the
 * holders it reads after the lock include every grant committed before the lock was given. Every
 * grant and release writes its history row and its outbox event in the same transaction.
 * Releases take no lock: a release stamps its history row before it commits, and a grant that
 * sees the slot free stamps after that commit, so the history's order is the order in which
 * slots were really held.
 *
 * `p_events` describes the outbox rows: `{granted|released: {type, subject: [before, between,
 * after]}, headers}`, the subject being `before || org || between || node || after`, so the
 * subjects stay those of the event definitions in @careen/contracts.
 */
/** A slot as the functions return it: the columns of agbot.upgrade_grants. */
const SLOT_COLUMNS = `org text, node text, holder_kind text, ha_group text, management_policy text,
  granted_at timestamptz, lease_expires_at timestamptz`;
const slotOf = (row: string) =>
  ['org', 'node', 'holder_kind', 'ha_group', 'management_policy', 'granted_at', 'lease_expires_at']
    .map((column) => `(${row}).${column}`)
    .join(', ');
/** What `release_upgrade_slot` returned (as `r`), in the order of acquire_upgrade_slot's columns. */
const RELEASED_COLUMNS = (reason: string) =>
  `r.org, r.node, r.holder_kind, r.ha_group, r.management_policy, r.granted_at, r.lease_expires_at, ${reason}, r.released_at`;

/** Times as JavaScript's toISOString() writes them; stored times are whole milliseconds. */
export const ISO_TIME = `
      CREATE FUNCTION agbot.iso_time(p_at timestamptz) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$`;

/** Writes a grant's outbox row, its subject assembled from the `p_events` description. */
export const APPEND_UPGRADE_EVENT = `
      CREATE FUNCTION agbot.append_upgrade_event(
        p_grant agbot.upgrade_grants, p_event text, p_events jsonb, p_extra jsonb
      ) RETURNS void
      LANGUAGE sql
      AS $$
        INSERT INTO agbot.outbox (subject, type, payload, headers)
        SELECT (e->'subject'->>0) || p_grant.org || (e->'subject'->>1) || p_grant.node || (e->'subject'->>2),
               e->>'type',
               jsonb_build_object(
                 'org', p_grant.org,
                 'node', p_grant.node,
                 'haGroup', p_grant.ha_group,
                 'holder', p_grant.holder_kind,
                 'managementPolicy', p_grant.management_policy,
                 'grantedAt', agbot.iso_time(p_grant.granted_at),
                 'leaseExpiresAt', agbot.iso_time(p_grant.lease_expires_at)
               ) || p_extra,
               coalesce(p_events->'headers', '{}'::jsonb)
        FROM (SELECT p_events->p_event AS e) AS event
      $$`;

/**
 * Releases one slot if it is still held (and, when asked, only if its lease ran out, or it is
 * held for that policy, or for another group than p_not_group); returns what it released.
 * Exported, like the grant function, so that a later migration's down() can restore it.
 */
export const RELEASE_UPGRADE_SLOT_V1 = `
      CREATE FUNCTION agbot.release_upgrade_slot(
        p_org text, p_node text, p_kind text, p_reason text, p_events jsonb,
        p_only_expired boolean DEFAULT false,
        p_only_policy text DEFAULT NULL,
        p_only_if_group_is_not boolean DEFAULT false,
        p_not_group text DEFAULT NULL
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
          AND (NOT p_only_expired OR g.lease_expires_at <= clock_timestamp())
          AND (p_only_policy IS NULL OR g.management_policy = p_only_policy)
          AND (NOT p_only_if_group_is_not OR g.ha_group IS DISTINCT FROM p_not_group)
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

// One row per slot it released on the way ('released', with its reason), then the answer
// ('answer'): granted, renewed or refused, with the slot granted, renewed or in the way; or
// unknown-node. semaphore_group is the node's group.
export const ACQUIRE_UPGRADE_SLOT_V1 = `
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
            AND (g.lease_expires_at <= clock_timestamp() OR g.ha_group IS DISTINCT FROM v_group)
          ORDER BY g.node, g.holder_kind
        LOOP
          v_reason := CASE WHEN v_stale.lease_expires_at <= clock_timestamp() THEN 'lease-expired' ELSE 'left-group' END;
          RETURN QUERY
            SELECT 'released', NULL::text, v_group, ${RELEASED_COLUMNS('v_reason')}
            FROM agbot.release_upgrade_slot(v_stale.org, v_stale.node, v_stale.holder_kind, v_reason, p_events,
                                            v_reason = 'lease-expired') AS r;
        END LOOP;

        SELECT * INTO v_own FROM agbot.upgrade_grants AS g
        WHERE g.org = p_org AND g.node = p_node AND g.holder_kind = p_kind;
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

        -- Other members' slots, oldest first: an agent upgrade needs the group free, a reboot
        -- needs no agent upgrade in it and a free FleetLock slot. A node's own slots never block it.
        SELECT * INTO v_blocker FROM agbot.upgrade_grants AS g
        WHERE g.org = p_org AND g.ha_group = v_group AND g.node <> p_node
        ORDER BY (g.holder_kind = 'agent-upgrade') DESC, g.granted_at, g.node
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

export class UpgradeGrants1764000100000 implements MigrationInterface {
  name = 'UpgradeGrants1764000100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE agbot.upgrade_grants (
        org text NOT NULL,
        node text NOT NULL,
        holder_kind text NOT NULL CHECK (holder_kind IN ('agent-upgrade', 'fleetlock')),
        ha_group text,
        management_policy text,
        granted_at timestamptz NOT NULL,
        lease_expires_at timestamptz NOT NULL,
        PRIMARY KEY (org, node, holder_kind)
      )`);
    await runner.query(
      'CREATE INDEX upgrade_grants_group_idx ON agbot.upgrade_grants (org, ha_group) WHERE ha_group IS NOT NULL',
    );
    await runner.query('CREATE INDEX upgrade_grants_lease_idx ON agbot.upgrade_grants (lease_expires_at)');
    await runner.query(`
      CREATE TABLE agbot.upgrade_grant_history (
        id bigserial PRIMARY KEY,
        org text NOT NULL,
        node text NOT NULL,
        holder_kind text NOT NULL,
        ha_group text,
        management_policy text,
        event text NOT NULL CHECK (event IN ('granted', 'released')),
        reason text,
        granted_at timestamptz NOT NULL,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await runner.query(
      'CREATE INDEX upgrade_grant_history_group_idx ON agbot.upgrade_grant_history (org, ha_group, at)',
    );

    // A node outside any group has a semaphore of its own, named so that no group can share it.
    await runner.query(`
      CREATE FUNCTION agbot.upgrade_lock_key(p_org text, p_semaphore text) RETURNS bigint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT hashtextextended('careen:upgrade:' || p_org || '/' || p_semaphore, 0) $$`);

    await runner.query(ISO_TIME);
    await runner.query(APPEND_UPGRADE_EVENT);
    await runner.query(RELEASE_UPGRADE_SLOT_V1);
    await runner.query(ACQUIRE_UPGRADE_SLOT_V1);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP FUNCTION agbot.acquire_upgrade_slot');
    await runner.query('DROP FUNCTION agbot.release_upgrade_slot');
    await runner.query('DROP FUNCTION agbot.append_upgrade_event');
    await runner.query('DROP FUNCTION agbot.iso_time');
    await runner.query('DROP FUNCTION agbot.upgrade_lock_key');
    await runner.query('DROP TABLE agbot.upgrade_grant_history');
    await runner.query('DROP TABLE agbot.upgrade_grants');
  }
}
