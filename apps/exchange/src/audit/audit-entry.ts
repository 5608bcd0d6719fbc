/**
 * What the audit trail records of one event: who acted (from the actor headers every Careen
 * event carries), what they did to what, and when. Each kind of event the trail reads has its
 * mapping here, pure, so the rules are tested without a bus.
 */
import {
  ACTOR_HEADERS,
  NODE_STATUS_REPORTED,
  TRACEPARENT_HEADER,
  type AuditActionPayload,
  type AuditOutcome,
  type ChangePayload,
  type RolloutEventPayload,
  type UpgradeGrantPayload,
} from '@careen/contracts';

export interface AuditEntry {
  /** The event's CloudEvents id: a record is kept once per event. */
  eventId: string;
  org: string;
  at: string;
  actor: string;
  actorKind: string;
  via: string | null;
  service: string;
  action: string;
  target: string;
  outcome: AuditOutcome;
  source: string | null;
  requestId: string | null;
  traceId: string | null;
}

/** What every Careen event says besides its payload. */
export interface EventEnvelope {
  attributes: { id: string; time: string; source: string };
  headers: ReadonlyMap<string, string>;
}

const optional = (value: string | undefined) => (value ? value : null);

function entry(
  message: EventEnvelope,
  what: Pick<AuditEntry, 'org' | 'action' | 'target'> & { outcome?: AuditOutcome },
): AuditEntry {
  const { attributes, headers } = message;
  const service = attributes.source.replace(/^careen\//, '');
  return {
    eventId: attributes.id,
    org: what.org,
    at: new Date(attributes.time).toISOString(),
    actor: headers.get(ACTOR_HEADERS.actor) || `careen:${service}`,
    actorKind: headers.get(ACTOR_HEADERS.kind) || 'careen',
    via: optional(headers.get(ACTOR_HEADERS.via)),
    service,
    action: what.action,
    target: what.target,
    outcome: what.outcome ?? 'succeeded',
    source: optional(headers.get(ACTOR_HEADERS.source)),
    requestId: optional(headers.get(ACTOR_HEADERS.request)),
    traceId: optional(headers.get(TRACEPARENT_HEADER)?.split('-')[1]),
  };
}

export function changeEntry(message: EventEnvelope & { payload: ChangePayload }): AuditEntry | undefined {
  const { org, resource, resourceId, operation, event } = message.payload;
  // A node's routine report of what runs on it is no action, and is not recorded.
  if (event === NODE_STATUS_REPORTED) return undefined;
  return entry(message, {
    org,
    action: `${resource}.${event ?? operation}`,
    target: `${resource}/${resourceId}`,
  });
}

/**
 * An HA-group slot granted, released (`slot.released.<reason>`) or halted. An agent's own
 * upgrade taking the slot and giving it back when done is the mechanics of the upgrade, whose
 * steps its management statuses record: not recorded again. Its halt, a reset, an expired
 * lease, a removed node, and every maintenance and FleetLock slot are.
 */
export function slotEntry(
  what: 'granted' | 'released' | 'halted',
): (
  message: EventEnvelope & { payload: UpgradeGrantPayload & { reason?: string } },
) => AuditEntry | undefined {
  return (message) => {
    const { org, node, holder, reason } = message.payload;
    if (holder === 'agent-upgrade' && (what === 'granted' || (reason && ROUTINE_RELEASES.has(reason))))
      return undefined;
    const action = what === 'released' && reason ? `slot.released.${reason}` : `slot.${what}`;
    return entry(message, { org, action, target: `node/${node}#${holder}` });
  };
}

/** How an agent gives back the slot of an upgrade that ended as it should. */
const ROUTINE_RELEASES = new Set(['released', 'terminal-status']);

export function rolloutEntry(message: EventEnvelope & { payload: RolloutEventPayload }): AuditEntry {
  const { org, event, rollout_id } = message.payload;
  return entry(message, { org, action: `rollout.${event}`, target: `rollout/${rollout_id}` });
}

export function actionEntry(message: EventEnvelope & { payload: AuditActionPayload }): AuditEntry {
  return entry(message, message.payload);
}
