import { Module } from '@nestjs/common';
import { MirrorModule } from '../mirror/mirror.module';
import { DeployCheckController } from './deploycheck.controller';
import { DeployCheckService } from './deploycheck.service';

/** POST /v1/orgs/{org}/deploycheck, answered from the agbot's mirror of the exchange. */
@Module({
  imports: [MirrorModule],
  controllers: [DeployCheckController],
  providers: [DeployCheckService],
})
export class DeployCheckModule {}
