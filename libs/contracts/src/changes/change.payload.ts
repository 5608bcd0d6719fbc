import { IsBoolean, IsIn, IsISO8601, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { IDENTIFIER_PATTERN } from '../identifiers';
import { defineEvent, subjectToken } from '../events/event-definition';
import { STREAMS } from '../streams';

export const CHANGE_OPERATIONS = ['created', 'updated', 'deleted'] as const;
export type ChangeOperation = (typeof CHANGE_OPERATIONS)[number];

/** The resources whose changes the exchange publishes. */
export const CHANGE_RESOURCES = [
  'org',
  'user',
  'node',
  'service',
  'deploymentPolicy',
  'haGroup',
  'managementPolicy',
  'managementStatus',
  'agentPackage',
] as const;
export type ChangeResource = (typeof CHANGE_RESOURCES)[number];

/**
 * One committed change in the exchange. Its change id (commit order) travels as the CloudEvent
 * id `exchange-<id>`, assigned when the outbox relay sequences it.
 */
export class ChangePayload {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsIn(CHANGE_RESOURCES)
  resource!: ChangeResource;

  @IsString()
  resourceId!: string;

  @IsIn(CHANGE_OPERATIONS)
  operation!: ChangeOperation;

  @IsISO8601()
  changedAt!: string;

  /**
   * True when the node the change is about made it itself (its status report or one of its
   * management statuses): it knows already, so it is not woken for it.
   */
  @IsOptional()
  @IsBoolean()
  byNode?: boolean;

  /**
   * What happened, where the operation alone does not say: for a management policy one of
   * MANAGEMENT_POLICY_EVENTS (published, enabled, disabled, paused, resumed, reset, removed).
   */
  @IsOptional()
  @IsString()
  event?: string;

  /** The resource as clients see it after the change (absent on delete). */
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}

export const ExchangeChanged = defineEvent({
  type: 'careen.exchange.changed',
  stream: STREAMS.changes.name,
  filter: 'careen.changes.>',
  subject: (org: string, resource: ChangeResource, id: string) =>
    `careen.changes.${subjectToken(org)}.${resource}.${subjectToken(id)}`,
  payload: ChangePayload,
});
