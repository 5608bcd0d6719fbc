/**
 * What a change's `data` holds for each resource: the resource as clients see it after the
 * change. Each class names the fields consumers rely on (the agbot's mirror and monitor, the
 * agent, the CLI); the exchange sends the whole resource, so a class lists no more than it must
 * and extra fields pass. A change whose data does not match its resource's class is refused on
 * receipt (dead-lettered on the bus), never half applied.
 */
import { plainToInstance } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  validateSync,
  type ValidationError,
} from 'class-validator';
import { IDENTIFIER_PATTERN } from '../identifiers';
import {
  MANAGEMENT_POLICY_STATES,
  MANAGEMENT_STATUSES,
  type ManagementPolicyState,
  type ManagementStatusValue,
} from '../management/management-status';
import { type ChangeResource } from './change-resource';

export class OrgChangeData {
  @Matches(IDENTIFIER_PATTERN)
  id!: string;
}

export class UserChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  username!: string;
}

export class NodeChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  id!: string;

  /** Null for a node outside any HA group. */
  @IsOptional()
  @IsString()
  haGroup!: string | null;

  @IsBoolean()
  schedulable!: boolean;

  /** The node's last status report (its `lastHeartbeat` among it), null before the first. */
  @IsOptional()
  @IsObject()
  status!: object | null;

  @IsISO8601()
  updatedAt!: string;
}

export class ServiceChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  id!: string;

  @IsString()
  version!: string;

  @IsString()
  arch!: string;
}

export class DeploymentPolicyChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  name!: string;

  @IsArray()
  @IsString({ each: true })
  constraints!: string[];
}

export class HaGroupChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  name!: string;

  @IsArray()
  @IsString({ each: true })
  members!: string[];
}

export class ManagementPolicyChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  name!: string;

  @IsBoolean()
  enabled!: boolean;

  @IsBoolean()
  paused!: boolean;

  @IsIn(MANAGEMENT_POLICY_STATES)
  state!: ManagementPolicyState;

  @IsArray()
  @IsString({ each: true })
  nodes!: string[];

  /** Null for a policy that upgrades no agent. */
  @IsOptional()
  @IsObject()
  agentUpgradePolicy!: object | null;
}

export class ManagementStatusChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  node!: string;

  @IsString()
  nmp!: string;

  @IsIn(MANAGEMENT_STATUSES)
  status!: ManagementStatusValue;

  @IsInt()
  attempt!: number;

  @IsISO8601()
  updated!: string;
}

export class AgentPackageChangeData {
  @IsString()
  version!: string;

  @IsString()
  sha256!: string;
}

/** Each resource's data class. */
export const CHANGE_DATA = {
  org: OrgChangeData,
  user: UserChangeData,
  node: NodeChangeData,
  service: ServiceChangeData,
  deploymentPolicy: DeploymentPolicyChangeData,
  haGroup: HaGroupChangeData,
  managementPolicy: ManagementPolicyChangeData,
  managementStatus: ManagementStatusChangeData,
  agentPackage: AgentPackageChangeData,
} as const satisfies Record<ChangeResource, new () => object>;

/** The fields a resource's change data must have. */
export type ChangeContractOf<R extends ChangeResource> = InstanceType<(typeof CHANGE_DATA)[R]>;

/** A resource's change data as received: its contract's fields, and whatever else it carries. */
export type ChangeDataOf<R extends ChangeResource> = ChangeContractOf<R> & Record<string, unknown>;

/** Why the data does not match the resource's class, or undefined when it does. */
export function changeDataProblems(resource: ChangeResource, data: object): string | undefined {
  const errors = validateSync(plainToInstance(CHANGE_DATA[resource] as new () => object, data), {
    forbidUnknownValues: true,
  });
  return errors.length > 0 ? describe(errors) : undefined;
}

function describe(errors: ValidationError[]): string {
  return errors
    .map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join(', ') || 'invalid'}`)
    .join('; ');
}
