/**
 * What a change's `data` holds for each resource: the resource as clients see it after the
 * change. Each class names the fields consumers rely on (the agbot's mirror and monitor, the
 * agent, the CLI); the exchange sends the whole resource, so a class lists no more than it must
 * and extra fields pass. A change whose data does not match its resource's class is refused on
 * receipt (dead-lettered on the bus), never half applied.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
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
  Min,
  ValidateNested,
} from 'class-validator';
import { IDENTIFIER_PATTERN } from '../identifiers';
import {
  MANAGEMENT_POLICY_STATES,
  MANAGEMENT_STATUSES,
  type ManagementPolicyState,
  type ManagementStatusValue,
} from '../management/management-status';
import {
  UPGRADE_ACTIONS,
  type AgentUpgradePolicy,
  type ResumeWindow,
  type UpgradeAction,
} from '../management/agent-upgrade-policy';
import { contractProblems } from '../validation/validation-problems';
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

export class ServiceAccountChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @Matches(IDENTIFIER_PATTERN)
  name!: string;
}

/** An org's OpenID provider, never its client secret. */
export class IdentityProviderChangeData {
  @IsString()
  issuer!: string;
}

/** A key of a service account, never its secret. */
export class ApiKeyChangeData {
  @Matches(IDENTIFIER_PATTERN)
  account!: string;

  @IsString()
  id!: string;

  @IsString()
  state!: string;
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

/**
 * A policy property as a change carries it. Its shape is the policy library's `Property`,
 * restated here because contracts depend on nothing of ours; a reader that hands it to the
 * policy library has the compiler check the two agree.
 */
export interface ChangeProperty {
  readonly name: string;
  readonly value: string | number | boolean | readonly string[];
  readonly type?: 'string' | 'int' | 'float' | 'boolean' | 'version' | 'list of strings';
}

export class AgentUpgradePolicyData implements AgentUpgradePolicy {
  @IsString()
  atLeastVersion!: string;

  @IsString()
  start!: string;

  @IsInt()
  @Min(0)
  duration!: number;

  @IsIn(UPGRADE_ACTIONS)
  action!: UpgradeAction;

  @IsOptional()
  @IsString()
  location?: string;

  /** Absent for an upgrade that only moves up. */
  @IsOptional()
  @IsBoolean()
  allowDowngrade?: boolean;
}

export class ResumeWindowData implements ResumeWindow {
  @IsISO8601()
  start!: string;

  @IsInt()
  @Min(0)
  duration!: number;
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

  @IsArray()
  @IsString({ each: true })
  constraints!: string[];

  @IsArray()
  @IsObject({ each: true })
  properties!: ChangeProperty[];

  @IsArray()
  @IsString({ each: true })
  patterns!: string[];

  /** Null for a policy that upgrades no agent. */
  @IsOptional()
  @ValidateNested()
  @Type(() => AgentUpgradePolicyData)
  agentUpgradePolicy!: AgentUpgradePolicyData | null;

  /** Set by the last resume: nodes that had not started pick a moment in it. */
  @IsOptional()
  @ValidateNested()
  @Type(() => ResumeWindowData)
  resumeWindow!: ResumeWindowData | null;

  @IsISO8601()
  lastUpdated!: string;
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

/**
 * A maintenance window, freeze, budget or alert gate: the agbot's gate reads its settings with the disruption
 * library, which checks them as the exchange's DTOs did.
 */
export class DisruptionControlChangeData {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @IsString()
  name!: string;

  @IsObject()
  selector!: object;
}

/** Each resource's data class. */
export const CHANGE_DATA = {
  org: OrgChangeData,
  user: UserChangeData,
  serviceAccount: ServiceAccountChangeData,
  apiKey: ApiKeyChangeData,
  identityProvider: IdentityProviderChangeData,
  node: NodeChangeData,
  service: ServiceChangeData,
  deploymentPolicy: DeploymentPolicyChangeData,
  haGroup: HaGroupChangeData,
  managementPolicy: ManagementPolicyChangeData,
  managementStatus: ManagementStatusChangeData,
  agentPackage: AgentPackageChangeData,
  window: DisruptionControlChangeData,
  freeze: DisruptionControlChangeData,
  budget: DisruptionControlChangeData,
  gate: DisruptionControlChangeData,
} as const satisfies Record<ChangeResource, new () => object>;

/** The fields a resource's change data must have. */
export type ChangeContractOf<R extends ChangeResource> = InstanceType<(typeof CHANGE_DATA)[R]>;

/** A resource's change data as received: its contract's fields, and whatever else it carries. */
export type ChangeDataOf<R extends ChangeResource> = ChangeContractOf<R> & Record<string, unknown>;

/** Why the data does not match the resource's class, or undefined when it does. */
export function changeDataProblems(resource: ChangeResource, data: object): string | undefined {
  return contractProblems(CHANGE_DATA[resource], data);
}
