import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsModule } from '../orgs/orgs.module';
import { ServicesController } from './services.controller';
import { ServicesService } from './services.service';

@Module({
  imports: [OrgsModule],
  controllers: [ServicesController],
  providers: [ServicesService, ChangeRecorder],
  exports: [ServicesService],
})
export class ServicesModule {}
