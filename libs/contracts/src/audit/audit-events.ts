/**
 * The audit trail on the bus. A service tells of an action that no other event of its tells of
 * (starting a session, publishing a strategy, making a subscription) on
 * `careen.audit.actions.<org>.<service>`, written to its outbox in the transaction of the action,
 * with the actor headers every event carries (ACTOR_HEADERS). The exchange chains every record
 * of an org and exports each, as stored, on `careen.audit.records.<org>` for a SIEM.
 */
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { defineEvent, subjectToken } from '../events/event-definition';
import { IDENTIFIER_PATTERN } from '../identifiers';
import { STREAMS } from '../streams';

export const AUDIT_OUTCOMES = ['succeeded', 'refused'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export class AuditActionPayload {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  /** `<resource>.<what happened>`, e.g. `session.aborted`. */
  @IsString()
  @MaxLength(200)
  action!: string;

  /** `<resource>/<id>`, e.g. `session/6d7f…`. */
  @IsString()
  @MaxLength(500)
  target!: string;

  @IsIn(AUDIT_OUTCOMES)
  outcome!: AuditOutcome;
}

/** One record of an org's trail as stored: its place, its hash and the hash it chains to. */
export class AuditRecordPayload {
  @IsInt()
  @Min(1)
  seq!: number;

  @IsString()
  org!: string;

  @IsISO8601()
  at!: string;

  @IsString()
  actor!: string;

  @IsString()
  actorKind!: string;

  @IsOptional()
  @IsString()
  via!: string | null;

  @IsString()
  service!: string;

  @IsString()
  action!: string;

  @IsString()
  target!: string;

  @IsIn(AUDIT_OUTCOMES)
  outcome!: AuditOutcome;

  @IsOptional()
  @IsString()
  source!: string | null;

  @IsOptional()
  @IsString()
  requestId!: string | null;

  @IsOptional()
  @IsString()
  traceId!: string | null;

  @IsString()
  eventId!: string;

  @IsString()
  prevHash!: string;

  @IsString()
  hash!: string;
}

export const AuditAction = defineEvent({
  type: 'careen.audit.action',
  stream: STREAMS.audit.name,
  filter: 'careen.audit.actions.>',
  subject: (org: string, service: string) =>
    `careen.audit.actions.${subjectToken(org)}.${subjectToken(service)}`,
  payload: AuditActionPayload,
});

export const AuditRecorded = defineEvent({
  type: 'careen.audit.record',
  stream: STREAMS.audit.name,
  filter: 'careen.audit.records.>',
  subject: (org: string) => `careen.audit.records.${subjectToken(org)}`,
  payload: AuditRecordPayload,
});
