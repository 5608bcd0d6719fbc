import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { DeploymentPoliciesController } from './deployment-policies.controller';
import { DeploymentPoliciesService } from './deployment-policies.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [DeploymentPoliciesController],
  providers: [DeploymentPoliciesService],
  exports: [DeploymentPoliciesService],
})
export class DeploymentPoliciesModule {}
