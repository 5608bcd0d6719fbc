import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsModule } from '../orgs/orgs.module';
import { HaGroupsController } from './ha-groups.controller';
import { HaGroupsService } from './ha-groups.service';

@Module({
  imports: [OrgsModule],
  controllers: [HaGroupsController],
  providers: [HaGroupsService, ChangeRecorder],
})
export class HaGroupsModule {}
