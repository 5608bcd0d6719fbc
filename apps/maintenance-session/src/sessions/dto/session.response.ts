/** What the maintenance routes answer: sessions as `viewOf` shows them, a project's instances and a reply taken. */
import {
  INSTANCE_ACTIONS,
  type InstanceAction,
  REPLIED_STATES,
  type RepliedState,
  REPLY_TIMEOUT_POLICIES,
  type ReplyTimeoutPolicy,
  SESSION_STATES,
  type SessionState,
} from '@careen/contracts';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ASK_ANSWERS, type AskAnswer, HOST_PHASES, type HostPhase } from '../../workflow/workflow.types';
import {
  HOST_ACTION_KINDS,
  type HostActionKind,
  type HostActionSpec,
  TIMELINE_KINDS,
  type TimelineEntry,
} from '../session-record';
import { type HostCounts } from '../host-counts';
import { type SessionView, type SlotHolderView } from '../session-view';

type HostView = SessionView['hosts'][number];
type ProjectView = SessionView['projects'][number];
type AskView = ProjectView['asks'][number];
type TimelineView = NonNullable<SessionView['timeline']>[number];

export class HostActionResponse implements HostActionSpec {
  @ApiProperty({ enum: HOST_ACTION_KINDS }) kind!: HostActionKind;
  @ApiPropertyOptional({ type: 'integer', description: '`simulated` only: how long the pause lasts' })
  seconds?: number;
  @ApiPropertyOptional({ description: '`agent-upgrade` only: the agent version the host is rolled to' })
  version?: string;
}

export class SlotHolderResponse implements SlotHolderView {
  @ApiProperty({ description: '`agent-upgrade`, `fleetlock` or `maintenance`' }) kind!: string;
  @ApiProperty() node!: string;
  @ApiProperty({ type: String, nullable: true, description: 'the management policy of an agent upgrade' })
  management_policy!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the open maintenance session that holds the node, for a maintenance slot',
  })
  session!: string | null;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the holder was granted the slot' })
  since!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lease_expires_at!: string | null;
  @ApiProperty({ description: 'the holder failed and halts its group' }) halted!: boolean;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the agbot last refused the slot' })
  seen_at!: string;
}

export class HostCountsResponse implements HostCounts {
  @ApiProperty({ type: 'integer' }) hosts!: number;
  @ApiProperty({ type: 'integer', description: 'not started' }) waiting!: number;
  @ApiProperty({
    type: 'integer',
    description: 'asking for its slot, preparing, evacuating or in maintenance',
  })
  under_way!: number;
  @ApiProperty({ type: 'integer' }) done!: number;
  @ApiProperty({ type: 'integer', description: 'left out before it was taken out of service' })
  skipped!: number;
  @ApiProperty({ type: 'integer', description: 'out of service when the session ended, put back unfinished' })
  interrupted!: number;
}

@ApiExtraModels(SlotHolderResponse)
export class SessionHostResponse implements HostView {
  @ApiProperty() host!: string;
  @ApiProperty({ type: String, nullable: true }) ha_group!: string | null;
  @ApiProperty({ enum: HOST_PHASES }) phase!: HostPhase;
  @ApiProperty({ type: String, format: 'date-time', description: 'when it took this phase' }) since!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'why it was skipped or interrupted; waiting in `slot`, why the agbot last refused it (a busy group, a freeze, a window, a budget)',
  })
  reason!: string | null;
  @ApiProperty({
    enum: [...HOST_PHASES, null],
    nullable: true,
    description: '`interrupted`: the phase it was in when the session ended',
  })
  interrupted_in!: HostPhase | null;
  // `nullable` beside a `$ref` does not reach into it (OpenAPI 3.0.3): null is the other choice.
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(SlotHolderResponse) }, { type: 'object', nullable: true, enum: [null] }],
    description: '`slot`: who holds the HA-group slot it waits for, once the agbot refused it',
  })
  waiting_for!: SlotHolderResponse | null;
}

/** A state told to the project that waits for its reply. */
export class SessionAskResponse implements AskView {
  @ApiProperty({ enum: REPLIED_STATES }) state!: RepliedState;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the host it is about; null for session-wide states',
  })
  host!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) asked_at!: string;
  @ApiProperty({ type: String, format: 'date-time' }) deadline!: string;
  @ApiProperty({ enum: ASK_ANSWERS, description: '`cancelled`: the session ended before the reply came' })
  answer!: AskAnswer;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) answered_at!: string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'string', enum: [...INSTANCE_ACTIONS] },
    description: 'the action the reply asked for each instance, by instance id',
  })
  instance_actions!: Record<string, InstanceAction> | null;
}

export class SessionProjectResponse implements ProjectView {
  @ApiProperty() project_id!: string;
  @ApiProperty({ description: 'someone listens to its events: it is asked, and waited for' })
  subscribed!: boolean;
  @ApiProperty({ type: 'integer' }) reply_timeout_seconds!: number;
  @ApiProperty({ enum: REPLY_TIMEOUT_POLICIES }) reply_timeout_policy!: ReplyTimeoutPolicy;
  @ApiProperty({ type: [String] }) instance_ids!: string[];
  @ApiProperty({ type: [SessionAskResponse] }) asks!: SessionAskResponse[];
}

export class TimelineEntryResponse implements TimelineView {
  @ApiProperty({ type: String, format: 'date-time' }) at!: string;
  @ApiProperty({ enum: TIMELINE_KINDS }) kind!: TimelineEntry['kind'];
  @ApiProperty({ type: String, nullable: true }) project_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) host!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the state sent, or the reply received or refused, as it came',
  })
  state!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) detail!: Record<string, unknown>;
  @ApiProperty({
    description: "the entry in words: the state, or what a note notes (`session paused`, a failure's reason)",
  })
  summary!: string;
}

/** A session without its timeline: what every route but `GET /v1/maintenance/{session}` answers. */
export class SessionResponse implements Omit<SessionView, 'timeline'> {
  @ApiProperty({ format: 'uuid' }) session_id!: string;
  @ApiProperty() org!: string;
  @ApiProperty({ enum: SESSION_STATES }) state!: SessionState;
  @ApiProperty() paused!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'why the session failed' }) failure!:
    string | null;
  @ApiProperty() created_by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) closed_at!: string | null;
  @ApiProperty({
    description:
      'when the hosts start going (ISO 8601): as the request gave it, else the reply timeout after the start',
  })
  actions_at!: string;
  @ApiProperty({ type: HostActionResponse }) host_action!: HostActionResponse;
  @ApiProperty({ type: 'integer' }) max_parallel_hosts!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "the request's metadata, with Fenix's workflow name when given",
  })
  metadata!: Record<string, unknown>;
  @ApiProperty({ type: HostCountsResponse, description: "the hosts' phases counted" })
  counts!: HostCountsResponse;
  @ApiProperty({
    description: 'the counts in words, as the CLI and the console show them',
    example: '1/3 done, 1 interrupted, 1 skipped',
  })
  hosts_summary!: string;
  @ApiProperty({ type: [SessionHostResponse] }) hosts!: SessionHostResponse[];
  @ApiProperty({ type: [SessionProjectResponse] }) projects!: SessionProjectResponse[];
}

export class SessionWithTimelineResponse extends SessionResponse implements SessionView {
  @ApiProperty({
    type: [TimelineEntryResponse],
    description: 'what was sent, heard and refused, oldest first',
  })
  timeline!: TimelineEntryResponse[];
}

export class SessionListResponse {
  @ApiProperty({ type: [SessionResponse] }) items!: SessionResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class ProjectInstanceResponse {
  @ApiProperty() instance_id!: string;
  @ApiProperty() host!: string;
  @ApiProperty({ enum: HOST_PHASES, nullable: true, description: "the host's phase in the session" })
  host_phase!: HostPhase | null;
}

/** A project's part of a session, as its VNF manager reads it. */
export class ProjectInstancesResponse {
  @ApiProperty({ format: 'uuid' }) session_id!: string;
  @ApiProperty() project_id!: string;
  @ApiProperty({ enum: SESSION_STATES, description: "the session's state" }) state!: SessionState;
  @ApiProperty({ type: [String] }) instance_ids!: string[];
  @ApiProperty({ type: [ProjectInstanceResponse] }) instances!: ProjectInstanceResponse[];
}

export class ReplyTakenResponse {
  @ApiProperty({ format: 'uuid' }) session_id!: string;
  @ApiProperty() project_id!: string;
  @ApiProperty({ description: 'the reply as it came (`ACK_<state>`, `NACK_<state>` or an alias)' })
  state!: string;
}
