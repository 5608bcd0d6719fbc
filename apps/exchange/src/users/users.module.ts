import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsModule } from '../orgs/orgs.module';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [OrgsModule],
  controllers: [UsersController],
  providers: [UsersService, ChangeRecorder],
  exports: [UsersService],
})
export class UsersModule {}
