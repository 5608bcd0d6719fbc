import { CurrentPrincipal, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { DomainError } from '@careen/contracts';
import { actingOrg, listAnswer, SERVICE_CONFIG } from '@careen/service';
import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { type NotifierConfig } from '../notifier.config';
import { OrgQuery } from '../org.query';
import { Subscriptions } from '../subscriptions/subscriptions';
import { DELIVERY_STATES, type DeliveryState, deliveryView } from './delivery';
import { DeliveryStore } from './delivery-store';
import { DeliveryListResponse, DeliveryResponse } from './dto/delivery.response';

export class DeliveriesQuery extends OrgQuery {
  @ApiPropertyOptional({ description: 'one subscription' })
  @IsOptional()
  @IsUUID('4')
  subscription?: string;

  @ApiPropertyOptional({ enum: DELIVERY_STATES })
  @IsOptional()
  @IsIn(DELIVERY_STATES)
  state?: DeliveryState;
}

/** What the notifier owed and did: the org's deliveries, and dead ones sent again. */
@ApiTags('deliveries')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('subscriptions')
@Controller('v1/deliveries')
export class DeliveriesController {
  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly subscriptions: Subscriptions,
    @Inject(SERVICE_CONFIG) private readonly config: NotifierConfig,
  ) {}

  @Get()
  @ApiOkResponse({ type: DeliveryListResponse, description: 'the deliveries, newest first' })
  @ApiOperation({ summary: "The org's deliveries, newest first (500 at most), by subscription and state" })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: DeliveriesQuery,
  ): Promise<DeliveryListResponse> {
    const org = actingOrg(actor, query.org);
    return listAnswer(
      (await this.deliveries.list(org, query.subscription, query.state, 500)).map(deliveryView),
    );
  }

  @Post(':id/redeliver')
  @ApiOkResponse({ type: DeliveryResponse, description: 'the delivery, due again' })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Try a dead delivery again, from now, with a fresh deadline' })
  @ApiConflictResponse({ description: 'the delivery is not dead (notifier.delivery-not-dead)' })
  async redeliver(@CurrentPrincipal() actor: Principal, @Param('id') id: string): Promise<DeliveryResponse> {
    const delivery = /^\d{1,18}$/.test(id) ? await this.deliveries.get(id) : undefined;
    if (!delivery) throw new DomainError('not-found', 'notifier.delivery-not-found', `no delivery "${id}"`);
    actingOrg(actor, (await this.subscriptions.get(delivery.subscriptionId)).org);
    const again = await this.deliveries.redeliver(id, this.config.CAREEN_NOTIFIER_DELIVERY_DEADLINE_SECONDS);
    if (!again)
      throw new DomainError(
        'conflict',
        'notifier.delivery-not-dead',
        `delivery ${id} is ${delivery.state}, not dead`,
      );
    return deliveryView(again);
  }
}
