/**
 * What the deployment orchestrator tells other tools on CAREEN_ORCHESTRATOR: a rollout's life on
 * `careen.orchestrator.rollout.<event>` and each group's on `careen.orchestrator.group.<event>`,
 * with the rollout's id, org and strategy on every one.
 */
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Min } from 'class-validator';
import { defineEvent } from '../events/event-definition';
import { STREAMS } from '../streams';

export const ROLLOUT_EVENTS = [
  'started',
  'paused',
  'resumed',
  'cancelling',
  'cancelled',
  'completed',
  'failed',
] as const;
export type RolloutEventName = (typeof ROLLOUT_EVENTS)[number];

export const GROUP_EVENTS = ['started', 'prepared', 'succeeded', 'failed'] as const;
export type GroupEventName = (typeof GROUP_EVENTS)[number];

export class RolloutEventPayload {
  @IsUUID()
  rollout_id!: string;

  @IsIn(ROLLOUT_EVENTS)
  event!: RolloutEventName;

  @IsString()
  org!: string;

  @IsString()
  strategy!: string;

  @IsInt()
  @Min(1)
  strategy_version!: number;

  /** The agent version the rollout takes its nodes to. */
  @IsString()
  version!: string;

  @IsOptional()
  @IsString()
  reason?: string;
}

export class GroupEventPayload {
  @IsUUID()
  rollout_id!: string;

  @IsIn(GROUP_EVENTS)
  event!: GroupEventName;

  @IsString()
  org!: string;

  @IsString()
  strategy!: string;

  @IsString()
  group!: string;

  /** The group's nodes, and how many of them have succeeded and failed so far. */
  @IsInt()
  nodes!: number;

  @IsInt()
  successful!: number;

  @IsInt()
  failed!: number;

  @IsOptional()
  @IsString()
  reason?: string;
}

export const OrchestratorRolloutEvent = defineEvent({
  type: 'careen.orchestrator.rollout',
  stream: STREAMS.orchestrator.name,
  filter: 'careen.orchestrator.rollout.>',
  subject: (event: RolloutEventName) => `careen.orchestrator.rollout.${event}`,
  payload: RolloutEventPayload,
});

export const OrchestratorGroupEvent = defineEvent({
  type: 'careen.orchestrator.group',
  stream: STREAMS.orchestrator.name,
  filter: 'careen.orchestrator.group.>',
  subject: (event: GroupEventName) => `careen.orchestrator.group.${event}`,
  payload: GroupEventPayload,
});
