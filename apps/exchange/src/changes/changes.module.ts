import { Module } from '@nestjs/common';
import { ChangeFeedController } from './change-feed.controller';
import { ChangeFeedService } from './change-feed.service';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeTail } from './change-tail';

/** The change feed that agents and tools long-poll. */
@Module({
  controllers: [ChangeFeedController],
  providers: [ChangeFeedService, ChangeLogRepository, ChangeTail],
})
export class ChangesModule {}
