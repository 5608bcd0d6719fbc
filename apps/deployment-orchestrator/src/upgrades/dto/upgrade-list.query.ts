import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { ListLimitQuery } from '../../rollouts/dto/rollout-list.query';
import { UPGRADE_STATES, type UpgradeState } from '../upgrade-states';

export class UpgradeListQuery extends ListLimitQuery {
  @ApiPropertyOptional({ description: 'only this node' })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `node_id must be a node id: ${IDENTIFIER_RULE}` })
  node_id?: string;

  @ApiPropertyOptional({ enum: UPGRADE_STATES })
  @IsOptional()
  @IsIn(UPGRADE_STATES, { message: `state must be one of: ${UPGRADE_STATES.join(', ')}` })
  state?: UpgradeState;
}
