import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { ManagementPoliciesModule } from '../management-policies/management-policies.module';
import { ManagementStatusController } from './management-status.controller';
import { ManagementStatusService } from './management-status.service';
import { ManagementStatusWriter } from './management-status.writer';
import { PolicyStatusesController } from './policy-statuses.controller';

/** The per-node status of each management policy: written by nodes, rolled up, reset. */
@Module({
  imports: [ChangeRecordingModule, ManagementPoliciesModule],
  controllers: [ManagementStatusController, PolicyStatusesController],
  providers: [ManagementStatusService, ManagementStatusWriter],
})
export class ManagementStatusModule {}
