import { Module } from '@nestjs/common';
import { ChangeFeedController } from './change-feed.controller';
import { ChangeFeedMetrics } from './change-feed-metrics';
import { ChangeFeedService } from './change-feed.service';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeTail } from './change-tail';
import { NodeHeartbeat } from './node-heartbeat';
import { NodesSeenPublisher } from './nodes-seen.publisher';

/** The change feed that agents and tools long-poll. */
@Module({
  controllers: [ChangeFeedController],
  providers: [
    ChangeFeedService,
    ChangeFeedMetrics,
    ChangeLogRepository,
    ChangeTail,
    NodeHeartbeat,
    NodesSeenPublisher,
  ],
})
export class ChangesModule {}
