/**
 * What the maintenance service tells the agbot of an instance group a project declared (Fenix's
 * constraints API), on `careen.maint.groups.<org>`: the group's whole state each time it or one
 * of its instances changes, and once for every group when the service starts. `revision` grows
 * with every change of any group (one sequence), so a reader keeps the highest it has seen and
 * ignores an older state that arrives later; a removed group is told once more with `removed`.
 */
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { defineEvent, subjectToken } from '../events/event-definition';
import { IDENTIFIER_PATTERN } from '../identifiers';
import { STREAMS } from '../streams';

export class InstanceGroupPayload {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  groupId!: string;

  @Matches(IDENTIFIER_PATTERN)
  project!: string;

  /** No two of its instances on one host. */
  @IsBoolean()
  antiAffinity!: boolean;

  /** Instances of the group one host may hold; 0: no limit. */
  @IsInt()
  @Min(0)
  maxPerHost!: number;

  /** Instances of the group that may be impacted at once. */
  @IsInt()
  @Min(1)
  maxImpacted!: number;

  /** Seconds the group needs after a disruption of its instances ends before the next starts. */
  @IsInt()
  @Min(0)
  recoverySeconds!: number;

  /**
   * The deployment policies its declared instances (`<deployment policy>@<host>`) name: every
   * instance of those policies is the group's, wherever it is placed.
   */
  @IsArray()
  @ArrayMaxSize(10_000)
  @Matches(IDENTIFIER_PATTERN, { each: true })
  policies!: string[];

  @IsBoolean()
  removed!: boolean;

  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  revision!: number;
}

export const InstanceGroupDeclared = defineEvent({
  type: 'careen.maintenance.instance-group',
  stream: STREAMS.maintenance.name,
  filter: 'careen.maint.groups.>',
  subject: (org: string) => `careen.maint.groups.${subjectToken(org)}`,
  payload: InstanceGroupPayload,
});

/** The deployment policy an instance id `<deployment policy>@<host>` names, if it names one. */
export function policyOfInstance(instanceId: string): string | undefined {
  const at = instanceId.indexOf('@');
  const policy = at > 0 ? instanceId.slice(0, at) : '';
  return IDENTIFIER_PATTERN.test(policy) ? policy : undefined;
}
