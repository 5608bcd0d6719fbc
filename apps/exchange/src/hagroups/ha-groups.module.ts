import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { HaGroupsController } from './ha-groups.controller';
import { HaGroupsService } from './ha-groups.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [HaGroupsController],
  providers: [HaGroupsService],
})
export class HaGroupsModule {}
