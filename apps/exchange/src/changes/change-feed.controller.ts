import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal, OnResource } from '@careen/auth';
import { HangUp } from '@careen/service';
import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiGoneResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ChangeFeedService } from './change-feed.service';
import { ChangeFeedResponse, ChangeHeadResponse } from './dto/change-feed.response';
import { ChangeQueryDto } from './dto/change-query.dto';

@ApiTags('changes')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('changes')
@Controller('v1/orgs/:org/changes')
export class ChangeFeedController {
  constructor(private readonly feed: ChangeFeedService) {}

  /**
   * Where the feed is now. A client that starts without history (a new agent) reads this
   * first, then the state it needs, then follows the feed from here: nothing committed after
   * the state it read is missed.
   */
  @Get('head')
  @ApiOperation({ summary: "Read the change feed's head, to follow it from now" })
  @ApiParam({ name: 'org', description: 'the org whose feed is followed' })
  @ApiOkResponse({ type: ChangeHeadResponse })
  @OrgScoped()
  @AllowNodes()
  head(): ChangeHeadResponse {
    return { lastId: this.feed.head() };
  }

  /** Long-poll: answers at once when there are changes after `since`, else within `wait` seconds. */
  @Get()
  @ApiOperation({ summary: 'Long-poll the changes after a change id' })
  @ApiOkResponse({
    type: ChangeFeedResponse,
    description: 'the changes after `since` the caller may see; none when `wait` ran out first',
  })
  @ApiGoneResponse({
    description:
      'the changes after `since` were pruned (SINCE_TOO_OLD): resync, then follow from `details.resyncFrom`',
  })
  @OrgScoped()
  @AllowNodes()
  read(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Query() query: ChangeQueryDto,
    @HangUp() hangUp: AbortSignal,
  ): Promise<ChangeFeedResponse> {
    // A poller that hangs up stops waiting at once.
    return this.feed.read(principal, org, query, hangUp);
  }
}
