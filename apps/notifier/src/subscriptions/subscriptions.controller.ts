import { CurrentPrincipal, principalId, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { actingOrg, listAnswer, uuidPipe } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { OrgQuery } from '../org.query';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { RotateSecretDto } from './dto/rotate-secret.dto';
import {
  SubscriptionCreatedResponse,
  SubscriptionCredentialsResponse,
  SubscriptionListResponse,
  SubscriptionResponse,
  SubscriptionRotatedResponse,
} from './dto/subscription.response';
import { type Subscription } from './subscription';
import { Subscriptions, type SubscriptionWithSecret, viewOf } from './subscriptions';

const ID = uuidPipe('id');

/** Who receives which maintenance events, and how: an org's admins manage its subscriptions. */
@ApiTags('subscriptions')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('subscriptions')
@Controller('v1/subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: Subscriptions) {}

  @Post()
  @ApiCreatedResponse({
    type: SubscriptionCreatedResponse,
    description:
      "the subscription, with a webhook's secret or a nats subscriber's credentials (shown this once)",
  })
  @NeedsRole('orgAdmin')
  @ApiOperation({
    summary:
      "Subscribe to maintenance events; the answer shows a webhook's signing secret, or a NATS subscriber's credentials, once",
  })
  @ApiBadRequestResponse({
    description: 'every problem at once: scope and fields that disagree, a URL not allowed',
  })
  create(
    @CurrentPrincipal() actor: Principal,
    @Body() body: CreateSubscriptionDto,
  ): Promise<SubscriptionCreatedResponse> {
    const org = actingOrg(actor, body.org);
    return this.subscriptions.create(org, principalId(actor), body);
  }

  @Get()
  @ApiOkResponse({ type: SubscriptionListResponse, description: "the org's subscriptions" })
  @ApiOperation({ summary: "The org's subscriptions (never their secrets)" })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: OrgQuery,
  ): Promise<SubscriptionListResponse> {
    return listAnswer(await this.subscriptions.list(actingOrg(actor, query.org)));
  }

  @Get(':id')
  @ApiOkResponse({ type: SubscriptionResponse, description: 'the subscription' })
  @ApiOperation({ summary: 'A subscription (never its secret)' })
  @ApiNotFoundResponse({ description: 'no such subscription' })
  async get(
    @CurrentPrincipal() actor: Principal,
    @Param('id', ID) id: string,
  ): Promise<SubscriptionResponse> {
    return viewOf(await this.owned(actor, id));
  }

  @Delete(':id')
  @ApiNoContentResponse({ description: 'removed, with what it was still owed' })
  @HttpCode(204)
  @NeedsRole('orgAdmin')
  @ApiOperation({ summary: 'Remove a subscription and what it is still owed' })
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', ID) id: string): Promise<void> {
    await this.subscriptions.remove(await this.owned(actor, id));
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @NeedsRole('orgAdmin')
  @ApiOperation({ summary: 'A new signing secret, shown once; the old one signs too for overlap_seconds' })
  @ApiOkResponse({
    type: SubscriptionRotatedResponse,
    description: 'the subscription, with its new secret (shown this once)',
  })
  @ApiConflictResponse({ description: 'not a webhook subscription (notifier.no-secret)' })
  async rotate(
    @CurrentPrincipal() actor: Principal,
    @Param('id', ID) id: string,
    @Body() body: RotateSecretDto,
  ): Promise<SubscriptionWithSecret> {
    return this.subscriptions.rotateSecret(await this.owned(actor, id), body.overlap_seconds);
  }

  @Post(':id/credentials')
  @ApiOkResponse({
    type: SubscriptionCredentialsResponse,
    description: 'the subscription, with its new credentials (shown this once)',
  })
  @HttpCode(200)
  @NeedsRole('orgAdmin')
  @ApiOperation({
    summary: "A nats subscription's new NATS credentials, shown once; earlier ones last until they expire",
  })
  @ApiConflictResponse({ description: 'not a nats subscription (notifier.no-credentials)' })
  async credentials(
    @CurrentPrincipal() actor: Principal,
    @Param('id', ID) id: string,
  ): Promise<SubscriptionWithSecret> {
    return this.subscriptions.reissueCredentials(await this.owned(actor, id));
  }

  /** The subscription, once the caller is found to be an admin of its org. */
  private async owned(actor: Principal, id: string): Promise<Subscription> {
    const subscription = await this.subscriptions.get(id);
    actingOrg(actor, subscription.org);
    return subscription;
  }
}
