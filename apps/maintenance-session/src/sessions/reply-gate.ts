/**
 * Whether a project's reply may be taken, decided with the session locked: the same rules for
 * a reply that comes by `PUT reply_url` and one that comes on the reply subject. A reply names
 * a state the project was asked and has not answered, and an action allowed in that state for
 * each instance it names, all of them the project's own in this session.
 */
import {
  INSTANCE_ACTIONS,
  type InstanceAction,
  type MaintenanceReplyPayload,
  parseReplyState,
  type RepliedState,
} from '@careen/contracts';
import { MaintenanceWorkflow } from '../workflow/maintenance-workflow';
import { type WorkflowInput } from '../workflow/workflow.types';
import { invalidReply, replyRefused } from './maintenance.errors';
import { type StepGate } from './session-steps';

const ALLOWED_ACTIONS: Partial<Record<RepliedState, readonly InstanceAction[]>> = {
  PREPARE_MAINTENANCE: ['MIGRATE', 'LIVE_MIGRATE'],
  PLANNED_MAINTENANCE: INSTANCE_ACTIONS,
};

export interface ReadReply {
  input: Extract<WorkflowInput, { kind: 'reply' }>;
  gate: StepGate;
}

/**
 * Reads a reply of `project` in session `sessionId`; throws a 400-kind error for one that cannot
 * mean anything. A reply that says again what the project's answer to that ask said leaves the
 * session unchanged rather than refused as answered.
 */
export function readReply(
  sessionId: string,
  project: string,
  body: MaintenanceReplyPayload,
  via: string,
): ReadReply {
  const parsed = parseReplyState(body.state);
  if (!parsed)
    throw invalidReply(`state "${body.state}" is not an ACK or NACK of a state that waits for a reply`);
  if (body.session_id !== undefined && body.session_id !== sessionId)
    throw invalidReply(`session_id "${body.session_id}" is not this session (${sessionId})`);
  if (body.instance_action !== undefined && body.instance_actions !== undefined)
    throw invalidReply('give instance_actions (by instance) or instance_action (for all of them), not both');
  const actions = Object.entries(body.instance_actions ?? {});
  const allowed = ALLOWED_ACTIONS[parsed.state] ?? [];
  const wrong = [
    ...actions.filter(([, action]) => !(allowed as readonly string[]).includes(action)),
    ...(body.instance_action !== undefined && !(allowed as readonly string[]).includes(body.instance_action)
      ? [['every instance', body.instance_action]]
      : []),
  ];
  if (wrong.length > 0)
    throw invalidReply(
      `${body.instance_action !== undefined ? 'instance_action' : 'instance_actions'}: ` +
        `${wrong.map(([instance, action]) => `${instance}: ${action}`).join(', ')} — ` +
        (allowed.length > 0
          ? `${parsed.state} allows ${allowed.join(', ')}`
          : `${parsed.state} takes no instance actions`),
    );
  const input: ReadReply['input'] = {
    kind: 'reply',
    project,
    state: parsed.state,
    ack: parsed.ack,
    ...(actions.length > 0
      ? { instanceActions: Object.fromEntries(actions) as Record<string, InstanceAction> }
      : {}),
    ...(body.instance_action !== undefined ? { instanceAction: body.instance_action as InstanceAction } : {}),
  };
  const gate: StepGate = (record) => {
    const workflow = new MaintenanceWorkflow(record.plan);
    const why = workflow.refusesReply(record.progress, project, parsed.state);
    if (why && workflow.repeatsAnswer(record.progress, input)) return { unchanged: true };
    if (why) return { refuse: replyRefused(why) };
    const owned = new Set(
      record.plan.instances.filter((instance) => instance.project === project).map((instance) => instance.id),
    );
    const foreign = actions.map(([instance]) => instance).filter((instance) => !owned.has(instance));
    if (foreign.length > 0)
      return {
        refuse: invalidReply(
          `instance_actions names ${foreign.map((each) => `"${each}"`).join(', ')}, not an instance of project "${project}" in this session`,
        ),
      };
    return {
      notes: [
        {
          kind: 'received',
          project,
          host: null,
          state: body.state,
          detail: {
            via,
            ...(actions.length > 0 ? { instance_actions: input.instanceActions } : {}),
            ...(input.instanceAction ? { instance_action: input.instanceAction } : {}),
          },
        },
      ],
    };
  };
  return { input, gate };
}
