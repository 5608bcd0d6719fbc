import { ApiProperty } from '@nestjs/swagger';
import { type OrgEntity } from '../org.entity';

export class OrgResponse {
  @ApiProperty() id!: string;
  @ApiProperty() label!: string;
  @ApiProperty() upgradeDefaults!: Record<string, unknown>;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;

  static from(org: OrgEntity): OrgResponse {
    return {
      id: org.id,
      label: org.label,
      upgradeDefaults: org.upgradeDefaults,
      createdAt: org.createdAt.toISOString(),
      updatedAt: org.updatedAt.toISOString(),
    };
  }
}

export class OrgListResponse {
  @ApiProperty({ type: [OrgResponse] }) items!: OrgResponse[];
  @ApiProperty() total!: number;
}
