/**
 * The states of planned maintenance (docs/domain.md, Maintenance sessions; after OPNFV Doctor's
 * planned-maintenance guideline and OpenStack Fenix): what a project or an admin tool is told,
 * and the replies a project sends back.
 */

/** States a project is told, on `careen.maint.project.<project_id>`. */
export const PROJECT_STATES = [
  'MAINTENANCE',
  'DOWN_SCALE',
  'PREPARE_MAINTENANCE',
  'INSTANCE_ACTION_DONE',
  'PLANNED_MAINTENANCE',
  'MAINTENANCE_COMPLETE',
] as const;
export type ProjectState = (typeof PROJECT_STATES)[number];

/** States that wait for the project's reply (`ACK_<state>` or `NACK_<state>`). */
export const REPLIED_STATES = [
  'MAINTENANCE',
  'DOWN_SCALE',
  'PREPARE_MAINTENANCE',
  'PLANNED_MAINTENANCE',
  'MAINTENANCE_COMPLETE',
] as const satisfies readonly ProjectState[];
export type RepliedState = (typeof REPLIED_STATES)[number];

/** States admin tools are told about a host, on `careen.maint.admin.<host>`. */
export const ADMIN_STATES = ['IN_MAINTENANCE', 'MAINTENANCE_COMPLETE'] as const;
export type AdminState = (typeof ADMIN_STATES)[number];

/** What a project may ask to be done with an instance on a host about to be maintained. */
export const INSTANCE_ACTIONS = ['MIGRATE', 'LIVE_MIGRATE', 'OWN_ACTION'] as const;
export type InstanceAction = (typeof INSTANCE_ACTIONS)[number];

/** A session's own state, as `GET /v1/maintenance/{session_id}` shows it (Fenix's names). */
export const SESSION_STATES = [
  'MAINTENANCE',
  'DOWN_SCALE',
  'PREPARE_MAINTENANCE',
  'START_MAINTENANCE',
  'PLANNED_MAINTENANCE',
  'MAINTENANCE_COMPLETE',
  'MAINTENANCE_DONE',
  'MAINTENANCE_FAILED',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** What happens to a project's part when its reply is a NACK or does not come in time. */
export const REPLY_TIMEOUT_POLICIES = ['proceed', 'skip-host', 'fail'] as const;
export type ReplyTimeoutPolicy = (typeof REPLY_TIMEOUT_POLICIES)[number];

export interface ParsedReply {
  ack: boolean;
  state: RepliedState;
}

/**
 * Fenix's names, accepted as aliases: `SCALE_IN` is `DOWN_SCALE`; Doctor's guideline spells the
 * last acknowledgement `MAINTENANCE_COMPLETE_ACK`.
 */
const ALIASES: Record<string, string> = {
  ACK_SCALE_IN: 'ACK_DOWN_SCALE',
  NACK_SCALE_IN: 'NACK_DOWN_SCALE',
  MAINTENANCE_COMPLETE_ACK: 'ACK_MAINTENANCE_COMPLETE',
};

/** Reads `ACK_<state>` / `NACK_<state>` (or an alias); undefined for anything else. */
export function parseReplyState(raw: string): ParsedReply | undefined {
  const name = ALIASES[raw] ?? raw;
  const match = /^(ACK|NACK)_(.+)$/.exec(name);
  if (!match) return undefined;
  const state = match[2] as RepliedState;
  if (!(REPLIED_STATES as readonly string[]).includes(state)) return undefined;
  return { ack: match[1] === 'ACK', state };
}
