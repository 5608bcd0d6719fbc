import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [UsersController],
  providers: [UsersService],
  exports: [UsersService],
})
export class UsersModule {}
