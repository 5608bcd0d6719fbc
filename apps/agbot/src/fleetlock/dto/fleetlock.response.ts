import { ApiProperty } from '@nestjs/swagger';
import { FLEETLOCK_ERROR_KINDS, type FleetLockErrorKind } from '../fleetlock.errors';

/** pre-reboot's answer: the slot is the node's until the lease ends. */
export class FleetLockSlotResponse {
  @ApiProperty({ description: 'the client_params.id asked for' }) id!: string;
  @ApiProperty({ description: 'the client_params.group asked for' }) group!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'the slot is given back by itself then, unless asked for again',
  })
  leaseExpiresAt!: string;
}

/** steady-state's answer. */
export class FleetLockReleaseResponse {
  @ApiProperty() id!: string;
  @ApiProperty() group!: string;
  @ApiProperty({ description: 'whether a slot was held and given back; false is not an error' })
  released!: boolean;
}

/**
 * The FleetLock protocol's error body, which every failure of its routes answers with instead of
 * the ErrorBody of the rest of the API: FleetLock clients read `kind`.
 */
export class FleetLockErrorResponse {
  @ApiProperty({ enum: Object.keys(FLEETLOCK_ERROR_KINDS), example: 'failed_lock_semaphore_full' })
  kind!: FleetLockErrorKind;
  @ApiProperty({ description: 'what went wrong, in words' })
  value!: string;
}
