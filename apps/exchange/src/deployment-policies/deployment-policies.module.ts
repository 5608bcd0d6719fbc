import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsModule } from '../orgs/orgs.module';
import { DeploymentPoliciesController } from './deployment-policies.controller';
import { DeploymentPoliciesService } from './deployment-policies.service';

@Module({
  imports: [OrgsModule],
  controllers: [DeploymentPoliciesController],
  providers: [DeploymentPoliciesService, ChangeRecorder],
  exports: [DeploymentPoliciesService],
})
export class DeploymentPoliciesModule {}
