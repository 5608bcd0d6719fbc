import { UPGRADE_HOLDER_KINDS, type UpgradeHolderKind } from '@careen/contracts';
import { ApiExtraModels, ApiProperty, type ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { type GroupSlotState } from '../grant-reads';
import { type UpgradeGrant } from '../upgrade-grant';

/**
 * An object of `type`, or null. `nullable` beside a `$ref` does not reach into it (OpenAPI
 * 3.0.3), so null is spelled out as the other choice.
 */
function objectOrNull(type: new () => object, description: string): ApiPropertyOptions {
  return {
    oneOf: [{ $ref: getSchemaPath(type) }, { type: 'object', nullable: true, enum: [null] }],
    description,
  };
}

export const UPGRADE_GROUP_STATES = ['free', 'busy', 'halted'] as const;
export type UpgradeGroupState = (typeof UPGRADE_GROUP_STATES)[number];

export class UpgradeGroupHolderResponse {
  @ApiProperty() node!: string;
  @ApiProperty({ enum: UPGRADE_HOLDER_KINDS }) kind!: UpgradeHolderKind;
  @ApiProperty({ nullable: true, type: String }) managementPolicy!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) grantedAt!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'null while halted' })
  leaseExpiresAt!: string | null;

  static from(grant: UpgradeGrant): UpgradeGroupHolderResponse {
    return {
      node: grant.node,
      kind: grant.kind,
      managementPolicy: grant.managementPolicy,
      grantedAt: grant.grantedAt.toISOString(),
      leaseExpiresAt: grant.haltedAt ? null : grant.leaseExpiresAt.toISOString(),
    };
  }
}

export class UpgradeGroupHaltResponse {
  @ApiProperty({ description: 'the member that failed and is not healthy again' }) node!: string;
  @ApiProperty({ nullable: true, type: String }) managementPolicy!: string | null;
  @ApiProperty({
    description:
      'the policy was removed since: the halt outlives it, and only a reset of the group ends it (short of the member reporting healthy)',
  })
  policyRemoved!: boolean;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) since!: string;
}

/** An HA group's upgrade slot: free, held (busy), or halted by a member that failed. */
@ApiExtraModels(UpgradeGroupHolderResponse, UpgradeGroupHaltResponse)
export class UpgradeGroupResponse {
  @ApiProperty() haGroup!: string;
  @ApiProperty({ type: 'integer', description: 'members, as the agbot knows them' }) members!: number;
  @ApiProperty({ enum: UPGRADE_GROUP_STATES }) state!: UpgradeGroupState;
  @ApiProperty(
    objectOrNull(
      UpgradeGroupHolderResponse,
      'the oldest holder (a halted one first); null while the slot is free',
    ),
  )
  holder!: UpgradeGroupHolderResponse | null;
  @ApiProperty(objectOrNull(UpgradeGroupHaltResponse, 'null unless halted'))
  halted!: UpgradeGroupHaltResponse | null;

  static from(group: GroupSlotState): UpgradeGroupResponse {
    const holder = group.holders[0];
    const halt = group.holders.find((grant) => grant.haltedAt !== null);
    return {
      haGroup: group.haGroup,
      members: group.members,
      state: halt ? 'halted' : holder ? 'busy' : 'free',
      holder: holder ? UpgradeGroupHolderResponse.from(holder) : null,
      halted: halt
        ? {
            node: halt.node,
            managementPolicy: halt.managementPolicy,
            policyRemoved:
              halt.managementPolicy !== null && group.removedPolicies.includes(halt.managementPolicy),
            error: halt.haltError,
            since: halt.haltedAt!.toISOString(),
          }
        : null,
    };
  }
}

export class UpgradeGroupListResponse {
  @ApiProperty({ type: [UpgradeGroupResponse] }) items!: UpgradeGroupResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
