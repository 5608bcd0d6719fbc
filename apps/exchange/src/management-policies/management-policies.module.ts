import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { ManagementStatusController } from '../management-status/management-status.controller';
import { ManagementStatusService } from '../management-status/management-status.service';
import { OrgsModule } from '../orgs/orgs.module';
import { ManagementPoliciesController } from './management-policies.controller';
import { ManagementPoliciesService } from './management-policies.service';

/** Node management policies and the per-node status of each. */
@Module({
  imports: [OrgsModule],
  controllers: [ManagementPoliciesController, ManagementStatusController],
  providers: [ManagementPoliciesService, ManagementStatusService, ChangeRecorder],
})
export class ManagementPoliciesModule {}
