import { Module } from '@nestjs/common';
import { OrgsModule } from '../orgs/orgs.module';
import { RolloutHistory } from './rollout-history';
import { RolloutHistoryController } from './rollout-history.controller';

/** The history of node management rollouts, written by the policies and statuses it records. */
@Module({
  imports: [OrgsModule],
  controllers: [RolloutHistoryController],
  providers: [RolloutHistory],
  exports: [RolloutHistory],
})
export class RolloutHistoryModule {}
