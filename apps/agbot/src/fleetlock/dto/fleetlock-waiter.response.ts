import { ApiProperty } from '@nestjs/swagger';
import { type FleetLockWaiter } from '../fleetlock-waiters';

export class FleetLockWaiterResponse {
  @ApiProperty() node!: string;
  @ApiProperty() haGroup!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'first refused since it last held a slot' })
  since!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'it asks again by itself; the latest refusal',
  })
  lastRefusedAt!: string;

  static from(waiter: FleetLockWaiter): FleetLockWaiterResponse {
    return {
      node: waiter.node,
      haGroup: waiter.haGroup,
      since: waiter.since.toISOString(),
      lastRefusedAt: waiter.lastRefusedAt.toISOString(),
    };
  }
}

export class FleetLockWaiterListResponse {
  @ApiProperty({ type: [FleetLockWaiterResponse] }) items!: FleetLockWaiterResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
