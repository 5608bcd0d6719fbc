/**
 * The events of planned maintenance on CAREEN_MAINT (docs/domain.md, Maintenance sessions and
 * Bus subjects and payloads), with
 * Doctor's snake_case fields: project events on `careen.maint.project.<project_id>`, admin
 * events on `careen.maint.admin.<host>`, and the replies projects may send on
 * `careen.maint.reply.<session_id>.<project_id>` instead of calling `reply_url`.
 */
import {
  ArrayUnique,
  IsArray,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  registerDecorator,
} from 'class-validator';
import { defineEvent, subjectToken } from '../events/event-definition';
import { STREAMS } from '../streams';
import {
  ADMIN_STATES,
  INSTANCE_ACTIONS,
  PROJECT_STATES,
  type AdminState,
  type InstanceAction,
  type ProjectState,
  parseReplyState,
  REPLIED_STATES,
} from './maintenance-states';

const URL_RULE = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** What a project is told about the session's effect on its instances. */
export class MaintenanceProjectEventPayload {
  @IsString()
  session_id!: string;

  @IsIn(PROJECT_STATES)
  state!: ProjectState;

  @IsString()
  project_id!: string;

  /** The org the project belongs to (project names are an org's own). */
  @IsOptional()
  @IsString()
  org?: string;

  /** Where the project reads its instances in the session (and the ones this state is about). */
  @IsUrl(URL_RULE)
  instance_ids!: string;

  /** The project's instances this state is about (all of them in the session for its session-wide states). */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  instances?: string[];

  /** Where the project answers; carries a capability for this session and project alone. */
  @IsOptional()
  @IsUrl(URL_RULE)
  reply_url?: string;

  /** When the reply is due (for MAINTENANCE, when the workflow starts). */
  @IsOptional()
  @IsISO8601()
  actions_at?: string;

  @IsOptional()
  @IsArray()
  @IsIn(INSTANCE_ACTIONS, { each: true })
  allowed_actions?: InstanceAction[];

  @IsObject()
  metadata!: Record<string, unknown>;

  /** The host a host-level state is about. */
  @IsOptional()
  @IsString()
  host?: string;
}

/** What admin tools are told about a host entering or leaving maintenance. */
export class MaintenanceAdminEventPayload {
  @IsString()
  session_id!: string;

  @IsIn(ADMIN_STATES)
  state!: AdminState;

  /** The admin project, as AODH needs one: the session's org. */
  @IsString()
  project_id!: string;

  @IsString()
  host!: string;
}

/** `ACK_<state>` or `NACK_<state>` of a state that is answered, or one of Fenix's aliases. */
function IsReplyState(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isReplyState',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseReplyState(value) !== undefined,
        defaultMessage: () =>
          `state must be ACK_<state> or NACK_<state> of ${REPLIED_STATES.join(', ')} (or Fenix's ACK_SCALE_IN)`,
      },
    });
}

/**
 * A project's reply, by `PUT reply_url` or on the reply subject. `state` is `ACK_<state>` or
 * `NACK_<state>` (checked by parseReplyState); `instance_actions` maps each instance to one of
 * INSTANCE_ACTIONS; Fenix clients also send `session_id` and `instance_ids`.
 */
export class MaintenanceReplyPayload {
  @IsReplyState()
  state!: string;

  @IsOptional()
  @IsObject()
  instance_actions?: Record<string, string>;

  /** Fenix's form: one action for every instance the event named. */
  @IsOptional()
  @IsString()
  instance_action?: string;

  @IsOptional()
  @IsString()
  session_id?: string;

  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsString({ each: true })
  instance_ids?: string[];
}

export const MaintenanceProjectEvent = defineEvent({
  type: 'careen.maintenance.project-event',
  stream: STREAMS.maintenance.name,
  filter: 'careen.maint.project.>',
  subject: (projectId: string) => `careen.maint.project.${subjectToken(projectId)}`,
  payload: MaintenanceProjectEventPayload,
});

export const MaintenanceAdminEvent = defineEvent({
  type: 'careen.maintenance.admin-event',
  stream: STREAMS.maintenance.name,
  filter: 'careen.maint.admin.>',
  subject: (host: string) => `careen.maint.admin.${subjectToken(host)}`,
  payload: MaintenanceAdminEventPayload,
});

export const MaintenanceReply = defineEvent({
  type: 'careen.maintenance.reply',
  stream: STREAMS.maintenance.name,
  filter: 'careen.maint.reply.>',
  subject: (sessionId: string, projectId: string) =>
    `careen.maint.reply.${subjectToken(sessionId)}.${subjectToken(projectId)}`,
  payload: MaintenanceReplyPayload,
});

/**
 * Admin tools may ask for a session over the bus: a request on this subject (core NATS
 * request-reply, outside every stream) with the body of `POST /v1/maintenance` plus the org,
 * answered with `{session_id, state}` or `{statusCode, error, message, details}` as the HTTP
 * route would.
 */
export const MAINTENANCE_REQUEST_SUBJECT = 'careen.requests.maintenance.start';

/**
 * The requests a service account makes on the bus, one subject per org so that the NATS
 * credentials the exchange issues it may publish on its own org's alone: `start` (the body of
 * `POST /v1/maintenance`) and `complete` (`{session_id, host}`, what `MAINTENANCE_COMPLETE`
 * says). Each carries the account's key in an `Authorization` header, checked as HTTP checks it.
 */
export const ORG_REQUEST_SUBJECTS = {
  start: (org: string) => `careen.requests.${subjectToken(org)}.maintenance.start`,
  complete: (org: string) => `careen.requests.${subjectToken(org)}.maintenance.complete`,
  /** Every org's, for the service that answers them: the org is the subject's third token. */
  any: 'careen.requests.*.maintenance.*',
} as const;

/**
 * Asked of the notifier before a project is told anything: `{org, project_id}`, answered
 * `{subscribed: boolean}`. A project nobody listens to is not waited for.
 */
export const NOTIFIER_SUBSCRIBED_SUBJECT = 'careen.notifier.subscribed';
