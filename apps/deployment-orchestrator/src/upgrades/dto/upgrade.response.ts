/** What the upgrade routes answer: history rows (`UpgradeView`) as they are, their times as ISO strings. */
import { ApiProperty } from '@nestjs/swagger';
import { INSTALL_STRATEGIES, UPGRADE_STATES, type UpgradeState } from '../upgrade-states';

export class UpgradeResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() org!: string;
  @ApiProperty() node_id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the agent version the node reported when asked; null if it never said',
  })
  from_version!: string | null;
  @ApiProperty() to_version!: string;
  @ApiProperty({ enum: INSTALL_STRATEGIES, description: 'the install strategy the agent uses' })
  strategy!: string;
  @ApiProperty({ type: String, nullable: true, description: 'where the agent fetches the package from' })
  location!: string | null;
  @ApiProperty({
    description: 'asked with allowDowngrade: its policy lets the agent go below the version it runs',
  })
  allow_downgrade!: boolean;
  @ApiProperty({ description: 'to_version is below from_version: the node is taken back to an older agent' })
  rollback!: boolean;
  @ApiProperty({ enum: UPGRADE_STATES }) state!: UpgradeState;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "the last management status the node's agent reported; `soaking` once it reported success while an alert gate's soak of its step lasts, `soak-failed` when an alert fired during it",
  })
  status!: string | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ description: 'the node-targeted management policy the upgrade is sent through' })
  policy!: string;
  @ApiProperty() created_by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

export class UpgradeListResponse {
  @ApiProperty({ type: [UpgradeResponse] }) items!: UpgradeResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
