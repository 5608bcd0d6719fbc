import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { RolloutHistoryModule } from '../rollout-history/rollout-history.module';
import { ManagementPoliciesController } from './management-policies.controller';
import { ManagementPoliciesService } from './management-policies.service';
import { PolicyEvents } from './policy-events';
import { RolloutControlService } from './rollout-control.service';

/** Node management policies: published, read, removed, paused and resumed. */
@Module({
  imports: [ChangeRecordingModule, OrgsModule, RolloutHistoryModule],
  controllers: [ManagementPoliciesController],
  providers: [ManagementPoliciesService, RolloutControlService, PolicyEvents],
  exports: [ManagementPoliciesService, PolicyEvents],
})
export class ManagementPoliciesModule {}
