import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { DisruptionControlsController } from './disruption-controls.controller';
import { DisruptionControlsService } from './disruption-controls.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [DisruptionControlsController],
  providers: [DisruptionControlsService],
})
export class DisruptionControlsModule {}
