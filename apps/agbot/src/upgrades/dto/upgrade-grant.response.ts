import { UPGRADE_HOLDER_KINDS, type UpgradeHolderKind } from '@careen/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { type UpgradeGrant } from '../upgrade-grant';

/** The answer to a granted (or renewed) upgrade request. */
export class UpgradeGrantResponse {
  @ApiProperty() org!: string;
  @ApiProperty() node!: string;
  @ApiProperty({ nullable: true, type: String, description: 'null for a node outside any HA group' })
  haGroup!: string | null;
  @ApiProperty() managementPolicy!: string;
  @ApiProperty({ example: '2026-11-22T08:00:00.000Z' }) grantedAt!: string;
  @ApiProperty({ description: 'renew before this by asking again (every lease/3)' }) leaseExpiresAt!: string;

  static from(grant: UpgradeGrant): UpgradeGrantResponse {
    return {
      org: grant.org,
      node: grant.node,
      haGroup: grant.haGroup,
      managementPolicy: grant.managementPolicy ?? '',
      grantedAt: grant.grantedAt.toISOString(),
      leaseExpiresAt: grant.leaseExpiresAt.toISOString(),
    };
  }
}

export class UpgradeHolderResponse {
  @ApiProperty() node!: string;
  @ApiProperty({ nullable: true, type: String }) haGroup!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'null for a FleetLock holder' })
  managementPolicy!: string | null;
  @ApiProperty() grantedAt!: string;
  @ApiProperty() leaseExpiresAt!: string;
  @ApiProperty() ageSeconds!: number;
  @ApiProperty({ enum: UPGRADE_HOLDER_KINDS }) kind!: UpgradeHolderKind;

  static from(grant: UpgradeGrant & { ageSeconds: number }): UpgradeHolderResponse {
    return {
      node: grant.node,
      haGroup: grant.haGroup,
      managementPolicy: grant.managementPolicy,
      grantedAt: grant.grantedAt.toISOString(),
      leaseExpiresAt: grant.leaseExpiresAt.toISOString(),
      ageSeconds: grant.ageSeconds,
      kind: grant.kind,
    };
  }
}

export class UpgradeHolderListResponse {
  @ApiProperty({ type: [UpgradeHolderResponse] }) items!: UpgradeHolderResponse[];
  @ApiProperty() total!: number;
}
