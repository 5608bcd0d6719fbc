import { ApiProperty } from '@nestjs/swagger';
import { type OrgEntity } from '../org.entity';

export class OrgResponse {
  @ApiProperty() id!: string;
  @ApiProperty() label!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "defaults for agent upgrades of the org's nodes, as given at creation",
  })
  upgradeDefaults!: Record<string, unknown>;
  @ApiProperty({
    description: "whether the org's users may sign in with a password; single sign-on may replace it",
  })
  passwordLogin!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static from(org: OrgEntity): OrgResponse {
    return {
      id: org.id,
      label: org.label,
      upgradeDefaults: org.upgradeDefaults,
      passwordLogin: org.passwordLogin,
      createdAt: org.createdAt.toISOString(),
      updatedAt: org.updatedAt.toISOString(),
    };
  }
}

export class OrgListResponse {
  @ApiProperty({ type: [OrgResponse] }) items!: OrgResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
