import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsModule } from '../orgs/orgs.module';
import { NodesController } from './nodes.controller';
import { NodesService } from './nodes.service';

@Module({
  imports: [OrgsModule],
  controllers: [NodesController],
  providers: [NodesService, ChangeRecorder],
  exports: [NodesService],
})
export class NodesModule {}
