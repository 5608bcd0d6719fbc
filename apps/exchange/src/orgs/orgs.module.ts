import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsController } from './orgs.controller';
import { OrgsService } from './orgs.service';

@Module({
  controllers: [OrgsController],
  providers: [OrgsService, ChangeRecorder],
  exports: [OrgsService],
})
export class OrgsModule {}
