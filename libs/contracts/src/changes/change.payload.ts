import {
  IsBoolean,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { IDENTIFIER_PATTERN } from '../identifiers';
import { defineEvent, subjectToken } from '../events/event-definition';
import { MANAGEMENT_STATUSES } from '../management/management-status';
import { STREAMS } from '../streams';
import { CompiledCheck } from '../validation/compiled-check';
import { identifier, isoTime, nullable } from '../validation/compiled-schemas';
import { changeDataProblems, type ChangeDataOf } from './change-data';
import {
  CHANGE_OPERATIONS,
  CHANGE_RESOURCES,
  type ChangeOperation,
  type ChangeResource,
} from './change-resource';

/** Checks `data` against its resource's class (change-data.ts). */
@ValidatorConstraint({ name: 'matchesResourceContract' })
class MatchesResourceContract implements ValidatorConstraintInterface {
  validate(data: unknown, args: ValidationArguments): boolean {
    return problemsOf(data, args) === undefined;
  }

  defaultMessage(args: ValidationArguments): string {
    const { resource } = args.object as ChangePayload;
    return `data does not match the ${resource} change contract: ${problemsOf(args.value, args)}`;
  }
}

function problemsOf(data: unknown, args: ValidationArguments): string | undefined {
  const { resource } = args.object as ChangePayload;
  // An unknown resource is reported by its own rule; data that is no object by @IsObject.
  if (!CHANGE_RESOURCES.includes(resource) || typeof data !== 'object' || data === null) return undefined;
  return changeDataProblems(resource, data);
}

/**
 * JSON whose objects have no field named `constructor` or `__proto__`, at any depth: class-
 * transformer, making instances of the data, would take one for the object's own constructor
 * or prototype and throw, or class-validator refuse the data as an unknown value.
 */
const PLAIN = { $ref: '#/$defs/plain' };
const PLAIN_OBJECT = {
  type: 'object',
  propertyNames: { not: { enum: ['constructor', '__proto__'] } },
  additionalProperties: PLAIN,
};
const PLAIN_DEFINITION = {
  anyOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array', items: PLAIN }, PLAIN_OBJECT],
};

/**
 * The data of the changes a fleet makes by the thousand — its nodes' status reports and their
 * management statuses — as their classes in change-data.ts check it. Extra fields pass there, so
 * they pass here.
 */
const COMPILED_DATA: Partial<Record<ChangeResource, object>> = {
  node: {
    ...PLAIN_OBJECT,
    required: ['org', 'id', 'schedulable', 'updatedAt'],
    properties: {
      org: identifier,
      id: { type: 'string' },
      haGroup: nullable({ type: 'string' }),
      schedulable: { type: 'boolean' },
      status: nullable(PLAIN_OBJECT),
      updatedAt: isoTime,
    },
  },
  managementStatus: {
    ...PLAIN_OBJECT,
    required: ['org', 'node', 'nmp', 'status', 'attempt', 'updated'],
    properties: {
      org: identifier,
      node: { type: 'string' },
      nmp: { type: 'string' },
      status: { enum: MANAGEMENT_STATUSES },
      attempt: { type: 'integer', finite: true },
      updated: isoTime,
    },
  },
};

/**
 * One committed change in the exchange. Its change id (commit order) travels as the CloudEvent
 * id `exchange-<id>`, assigned when the outbox relay sequences it. Every consumer of the change
 * stream decodes every change: its compiled check (compiled-check.ts) takes those of the
 * resources in COMPILED_DATA and changes without data; class-validator judges the others.
 */
@CompiledCheck({
  $defs: { plain: PLAIN_DEFINITION },
  type: 'object',
  additionalProperties: false,
  required: ['org', 'resource', 'resourceId', 'operation', 'changedAt'],
  properties: {
    org: identifier,
    resource: { enum: CHANGE_RESOURCES },
    resourceId: { type: 'string' },
    operation: { enum: CHANGE_OPERATIONS },
    changedAt: isoTime,
    byNode: nullable({ type: 'boolean' }),
    event: nullable({ type: 'string' }),
    data: { type: 'object' },
  },
  allOf: [
    ...Object.entries(COMPILED_DATA).map(([resource, data]) => ({
      if: { type: 'object', required: ['resource'], properties: { resource: { const: resource } } },
      then: { type: 'object', properties: { data } },
    })),
    {
      if: {
        type: 'object',
        required: ['resource'],
        properties: { resource: { not: { enum: Object.keys(COMPILED_DATA) } } },
      },
      then: { type: 'object', not: { required: ['data'] } },
    },
  ],
})
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
   * MANAGEMENT_POLICY_EVENTS (published, enabled, disabled, paused, resumed, reset, removed);
   * for a node, NODE_STATUS_REPORTED when it is the node's own status report.
   */
  @IsOptional()
  @IsString()
  event?: string;

  /** The resource as clients see it after the change (absent on delete). */
  @IsOptional()
  @IsObject()
  @Validate(MatchesResourceContract)
  data?: ChangeDataOf<ChangeResource>;
}

/** The event of a node change that is the node's routine report of what runs on it. */
export const NODE_STATUS_REPORTED = 'status-reported';

/** A change of one resource, its data typed by that resource's contract. */
export type ChangeOf<R extends ChangeResource> = Omit<ChangePayload, 'resource' | 'data'> & {
  resource: R;
  data?: ChangeDataOf<R>;
};

export function isChangeOf<R extends ChangeResource>(
  change: ChangePayload,
  resource: R,
): change is ChangePayload & ChangeOf<R> {
  return change.resource === resource;
}

export const ExchangeChanged = defineEvent({
  type: 'careen.exchange.changed',
  stream: STREAMS.changes.name,
  filter: 'careen.changes.>',
  subject: (org: string, resource: ChangeResource, id: string) =>
    `careen.changes.${subjectToken(org)}.${resource}.${subjectToken(id)}`,
  payload: ChangePayload,
});
