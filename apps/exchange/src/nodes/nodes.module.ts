import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { FleetMetrics } from './fleet-metrics';
import { NodesController } from './nodes.controller';
import { NodesService } from './nodes.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [NodesController],
  providers: [NodesService, FleetMetrics],
  exports: [NodesService],
})
export class NodesModule {}
