import { UPGRADE_HOLDER_KINDS, type UpgradeHolderKind } from '@careen/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { type UpgradeGrant } from '../upgrade-grant';

/** The answer to a granted (or renewed) request for a slot. */
export class UpgradeGrantResponse {
  @ApiProperty() org!: string;
  @ApiProperty() node!: string;
  @ApiProperty({ nullable: true, type: String, description: 'null for a node outside any HA group' })
  haGroup!: string | null;
  @ApiProperty({ enum: UPGRADE_HOLDER_KINDS }) holder!: UpgradeHolderKind;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'the policy enacted; null for a maintenance slot',
  })
  managementPolicy!: string | null;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-22T08:00:00.000Z' })
  grantedAt!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'renew before this by asking again (every lease/3)',
  })
  leaseExpiresAt!: string;

  static from(grant: UpgradeGrant): UpgradeGrantResponse {
    return {
      org: grant.org,
      node: grant.node,
      haGroup: grant.haGroup,
      holder: grant.kind,
      managementPolicy: grant.managementPolicy,
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
  @ApiProperty({ type: String, format: 'date-time' }) grantedAt!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'null while halted: a halted slot has no lease end',
  })
  leaseExpiresAt!: string | null;
  @ApiProperty({ type: 'integer', description: 'whole seconds since the slot was granted' })
  ageSeconds!: number;
  @ApiProperty({ enum: UPGRADE_HOLDER_KINDS }) kind!: UpgradeHolderKind;
  @ApiProperty({
    description: 'the holder failed its upgrade and is not healthy again: its group waits for it',
  })
  halted!: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) haltedAt!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'the error the halted holder reported' })
  error!: string | null;

  static from(grant: UpgradeGrant & { ageSeconds: number }): UpgradeHolderResponse {
    return {
      node: grant.node,
      haGroup: grant.haGroup,
      managementPolicy: grant.managementPolicy,
      grantedAt: grant.grantedAt.toISOString(),
      leaseExpiresAt: grant.haltedAt ? null : grant.leaseExpiresAt.toISOString(),
      ageSeconds: grant.ageSeconds,
      kind: grant.kind,
      halted: grant.haltedAt !== null,
      haltedAt: grant.haltedAt?.toISOString() ?? null,
      error: grant.haltError,
    };
  }
}

export class UpgradeHolderListResponse {
  @ApiProperty({ type: [UpgradeHolderResponse] }) items!: UpgradeHolderResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
