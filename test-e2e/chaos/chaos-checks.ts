/**
 * What the chaos run checks once the faults stopped and the work settled, each from recorded
 * timelines and the final state (never from logs). Each check answers its violations in words;
 * none is a pass.
 */
import { type SimulatedFleet } from '@careen/agent/src/index';
import { DLQ_REASON_HEADER, STREAMS } from '@careen/contracts';
import { HUB_SERVICES } from '@careen/devstack';
import { readStream, withClient } from '@careen/testing';
import { setTimeout as pause } from 'node:timers/promises';
import { maintenanceSpans, overlapsWithinGroups, upgradeSpans } from '../support/down-spans';
import { type ChaosPlatform } from './chaos-platform';
import { type HttpStatusCounter } from './http-status-counter';
import { type WorkItem } from './chaos-work';
import { type Call } from './steady-client';

export interface Check {
  name: string;
  violations: string[];
}

/** Invariant 1, with every kind of disruption: no two members of an HA group down at once. */
export function oneMemberDownPerGroup(fleet: SimulatedFleet, sessions: readonly WorkItem[]): string[] {
  const spans = [
    ...upgradeSpans(fleet.timeline),
    ...sessions.flatMap((item) => (item.session ? maintenanceSpans(item.session.timeline) : [])),
  ];
  return overlapsWithinGroups(spans, new Map(fleet.agents.map((agent) => [agent.node, agent.haGroup])));
}

/** Invariant 3: each group's members are exactly the nodes that name it, and no node is in two. */
export async function groupsAgreeWithNodes(root: Call, org: string): Promise<string[]> {
  const groups = (await root('GET', `/v1/orgs/${org}/hagroups`)).body.items as {
    name: string;
    members: string[];
  }[];
  const nodes = (await root('GET', `/v1/orgs/${org}/nodes`)).body.items as {
    id: string;
    haGroup: string | null;
  }[];
  const violations: string[] = [];
  const everyMember = groups.flatMap((group) => group.members);
  for (const member of new Set(everyMember))
    if (everyMember.filter((each) => each === member).length > 1)
      violations.push(`${org}/${member} is in two groups`);
  for (const group of groups) {
    const naming = nodes.filter((node) => node.haGroup === group.name).map((node) => node.id);
    if ([...naming].sort().join() !== [...group.members].sort().join())
      violations.push(
        `${org}/${group.name} lists ${group.members.join(', ')}; the nodes naming it are ${naming.join(', ')}`,
      );
  }
  for (const node of nodes)
    if (node.haGroup && !groups.some((group) => group.name === node.haGroup))
      violations.push(`${org}/${node.id} names group ${node.haGroup}, which does not exist`);
  return violations;
}

/**
 * The agents keep writing (status reports, heartbeats) while the checks run: a row younger than
 * this may still be on its way, and is not counted as lost.
 */
const SETTLED = "created_at < now() - interval '10 seconds'";

interface Delivery {
  violations: string[];
  lost: number;
  changes: number;
}

/**
 * Invariant 4 and nothing lost: every outbox row of every service is published, and every
 * exchange change committed since `sinceSeq` was applied by the agbot's consumer (its record of
 * handled changes holds each once, by its key). A row that is not there yet is looked for again
 * for `withinMs`.
 */
export async function changesAppliedOnce(
  databaseUrl: string,
  sinceSeq: number,
  withinMs = 30_000,
): Promise<Delivery> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const delivery = await deliveryNow(databaseUrl, sinceSeq);
    if (delivery.lost === 0 || Date.now() > deadline) return delivery;
    await pause(1_000);
  }
}

function deliveryNow(databaseUrl: string, sinceSeq: number): Promise<Delivery> {
  return withClient(databaseUrl, async (client) => {
    const violations: string[] = [];
    let lost = 0;
    for (const { schema } of HUB_SERVICES) {
      const { rows } = await client.query<{ unpublished: string }>(
        `SELECT count(*) AS unpublished FROM "${schema}".outbox WHERE published_at IS NULL AND ${SETTLED}`,
      );
      lost += Number(rows[0]!.unpublished);
      if (Number(rows[0]!.unpublished) > 0) {
        const { rows: waiting } = await client.query<{ row: string }>(
          `SELECT concat_ws(' ', 'id', id, 'seq', coalesce(seq::text, 'none'), subject, 'written', created_at,
                  'by', tx_id) AS row
             FROM "${schema}".outbox WHERE published_at IS NULL AND ${SETTLED} ORDER BY id LIMIT 5`,
        );
        violations.push(
          `${rows[0]!.unpublished} events of ${schema} never published: ${waiting.map((each) => each.row).join('; ')}`,
        );
      }
    }
    const { rows: missing } = await client.query<{ seq: string; published_at: Date | null }>(
      `SELECT o.seq, o.published_at FROM exchange.outbox o
        WHERE o.seq > $1 AND o.subject LIKE 'careen.changes.%' AND ${SETTLED}
          AND NOT EXISTS (SELECT 1 FROM agbot.processed_messages p
                           WHERE p.consumer = 'agbot-changes' AND p.message_id = 'exchange-' || o.seq)
        ORDER BY o.seq`,
      [sinceSeq],
    );
    for (const { seq, published_at } of missing)
      violations.push(
        `exchange change ${seq} never reached the agbot (${published_at ? `published at ${published_at.toISOString()}` : 'never published'})`,
      );
    const { rows: counted } = await client.query<{ changes: string }>(
      `SELECT count(*) AS changes FROM exchange.outbox WHERE seq > $1 AND subject LIKE 'careen.changes.%'`,
      [sinceSeq],
    );
    return { violations, lost: lost + missing.length, changes: Number(counted[0]!.changes) };
  });
}

/** The outbox rows the audit trail records (audit-collector.ts): SQL over `o`, a service's outbox. */
const AUDITED = `(o.subject LIKE 'careen.changes.%' AND coalesce(o.payload->>'event', '') <> 'status-reported'
   OR o.subject ~ '^careen\\.agbot\\.upgrades\\.[^.]+\\.[^.]+\\.(granted|released|halted)$'
      -- an agent's own slot, taken and given back for an upgrade that ended as it should
      AND NOT (o.payload->>'holder' = 'agent-upgrade'
               AND (o.subject LIKE '%.granted' OR coalesce(o.payload->>'reason', '') IN ('released', 'terminal-status')))
   OR o.subject LIKE 'careen.orchestrator.rollout.%'
   OR o.subject LIKE 'careen.audit.actions.%')`;

/**
 * The audit trail whole: every change and action any service committed since `since` (and
 * published) is recorded once, whatever was killed meanwhile. One not there yet is looked for
 * again for `withinMs`.
 */
export async function everyChangeAudited(
  databaseUrl: string,
  since: Date,
  withinMs = 30_000,
): Promise<{ violations: string[]; audited: number }> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = await withClient(databaseUrl, async (client) => {
      const violations: string[] = [];
      let audited = 0;
      for (const { schema } of HUB_SERVICES) {
        const { rows } = await client.query<{ audited: string; missing: string; example: string | null }>(
          `SELECT count(*) AS audited,
                  count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM exchange.audit_log a
                                                      WHERE a.event_id = $2 || '-' || o.seq)) AS missing,
                  min(o.subject || ' ' || o.seq) FILTER (WHERE NOT EXISTS (SELECT 1 FROM exchange.audit_log a
                                                      WHERE a.event_id = $2 || '-' || o.seq)) AS example
             FROM "${schema}".outbox o
            WHERE o.created_at >= $1 AND o.published_at IS NOT NULL AND ${AUDITED}`,
          [since, schema],
        );
        audited += Number(rows[0]!.audited);
        if (Number(rows[0]!.missing) > 0)
          violations.push(
            `${rows[0]!.missing} of ${rows[0]!.audited} changes of ${schema} are not in the audit trail (e.g. ${rows[0]!.example})`,
          );
      }
      return { violations, audited };
    });
    if (found.violations.length === 0 || Date.now() > deadline) return found;
    await pause(1_000);
  }
}

/** The exchange's latest change, to count from. */
export async function latestChange(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ latest: string | null }>(
      'SELECT max(seq) AS latest FROM exchange.outbox',
    );
    return Number(rows[0]!.latest ?? 0);
  });
}

/** Invariant 6: no group of a strategy rollout starts before every group it depends on succeeded. */
export function dependenciesKept(fleet: SimulatedFleet, rollouts: readonly WorkItem[]): string[] {
  const violations: string[] = [];
  for (const rollout of rollouts) {
    const prefix = `rollout-${rollout.id.slice(0, 8)}-`;
    const steps = fleet.timeline
      .filter((entry) => entry.nmp.startsWith(prefix))
      .map((entry) => ({
        index: Number(entry.nmp.slice(prefix.length).split('-')[0]),
        at: entry.at.getTime(),
      }));
    const span = (index: number) => {
      const times = steps.filter((step) => step.index === index).map((step) => step.at);
      return times.length > 0 ? { from: Math.min(...times), to: Math.max(...times) } : undefined;
    };
    const groups = rollout.groups ?? [];
    groups.forEach((group, index) => {
      const own = span(index);
      if (!own) return;
      for (const dependency of group.depends_on) {
        const before = span(groups.findIndex((each) => each.name === dependency));
        if (!before || own.from < before.to)
          violations.push(`rollout ${rollout.id}: ${group.name} started before ${dependency} ended`);
      }
    });
  }
  return violations;
}

/**
 * Invariant 7: a host goes IN_MAINTENANCE only once every project asked about it answered
 * (acknowledged or moved its instances) or its time ran out, as the session's own record shows.
 */
export function hostsEmptiedFirst(sessions: readonly WorkItem[]): string[] {
  const violations: string[] = [];
  for (const item of sessions) {
    if (!item.session) continue;
    for (const entry of item.session.timeline) {
      if (entry.kind !== 'sent' || entry.project_id !== null || entry.state !== 'IN_MAINTENANCE') continue;
      const enteredAt = Date.parse(entry.at);
      for (const project of item.session.projects)
        for (const ask of project.asks) {
          if (ask.host !== entry.host || Date.parse(ask.asked_at) > enteredAt) continue;
          const answeredAt = ask.answered_at ? Date.parse(ask.answered_at) : Infinity;
          if (ask.answer === 'pending' || answeredAt > enteredAt)
            violations.push(
              `session ${item.id}: ${entry.host} went IN_MAINTENANCE while ${project.project_id}'s ${ask.state} was unanswered`,
            );
        }
    }
  }
  return violations;
}

/** Work that neither ended nor moved for `quietMs` before the end: stuck. */
export function nothingStuck(
  items: readonly WorkItem[],
  lastMoved: (item: WorkItem) => number | undefined,
  quietMs: number,
): string[] {
  const now = Date.now();
  return items
    .filter((item) => item.outcome === 'open')
    .filter((item) => now - Math.max(item.startedAt, lastMoved(item) ?? 0) > quietMs)
    .map((item) => `${item.kind} ${item.id} has not moved for ${Math.round(quietMs / 1000)} s`);
}

/** Failed work says why. */
export function failuresExplained(items: readonly WorkItem[]): string[] {
  return items
    .filter((item) => item.outcome === 'failed' && !item.reason)
    .map((item) => `${item.kind} ${item.id} failed without a reason`);
}

/** Every dead letter carries its reason; answers how many there are, and any without one. */
export async function deadLettersExplained(
  platform: ChaosPlatform,
): Promise<{ violations: string[]; count: number }> {
  const stream = STREAMS.deadLetters.name;
  const info = await platform.bus.jsm.streams.info(stream).catch(() => undefined);
  // No service dead-lettered anything if none made the stream.
  const count = info?.state.messages ?? 0;
  if (count === 0) return { violations: [], count };
  const letters = await readStream(platform.bus, stream, { count });
  const violations = letters
    .filter((letter) => !letter.headers[DLQ_REASON_HEADER])
    .map((letter) => `dead letter ${letter.subject} has no reason`);
  return { violations, count };
}

/** No client saw a 500. */
export function no500s(statuses: HttpStatusCounter): string[] {
  return Object.entries(statuses.byService())
    .filter(([, counts]) => (counts[500] ?? 0) > 0)
    .map(([service, counts]) => `${service} answered 500 ${counts[500]} times`);
}
