import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATES, type DeliveryState } from '../delivery';

/** A delivery as the routes show it: the event's payload is left out, its id names it. */
export class DeliveryResponse {
  @ApiProperty({ description: 'a whole number, as a string', example: '42' }) id!: string;
  @ApiProperty({ format: 'uuid' }) subscription_id!: string;
  @ApiProperty() event_id!: string;
  @ApiProperty() event_type!: string;
  @ApiProperty() subject!: string;
  @ApiProperty({ enum: DELIVERY_STATES }) state!: DeliveryState;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, description: 'why the last attempt failed' })
  last_error!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' }) next_attempt_at!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'tried again until then, then dead' })
  deadline_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at!: string | null;
}

export class DeliveryListResponse {
  @ApiProperty({ type: [DeliveryResponse] }) items!: DeliveryResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
