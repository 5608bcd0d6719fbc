import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { ManagementStatusController } from '../management-status/management-status.controller';
import { ManagementStatusService } from '../management-status/management-status.service';
import { OrgsModule } from '../orgs/orgs.module';
import { ManagementPoliciesController } from './management-policies.controller';
import { ManagementPoliciesService } from './management-policies.service';

/** Node management policies and the per-node status of each. */
@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [ManagementPoliciesController, ManagementStatusController],
  providers: [ManagementPoliciesService, ManagementStatusService],
})
export class ManagementPoliciesModule {}
