import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';

export const MAINTENANCE_LEASE_DEFAULT_SECONDS = 300;

export class MaintenanceSlotRequestDto {
  @ApiPropertyOptional({
    type: Number,
    description:
      'how long the slot is held unless asked for again (which renews it); a holder that stops renewing frees the group once it ends',
    default: MAINTENANCE_LEASE_DEFAULT_SECONDS,
    minimum: 10,
    maximum: 86_400,
  })
  // Left out, the default applies; null is refused like any other value that is not a number.
  @ValidateIf((_dto, value) => value !== undefined)
  @IsInt()
  @Min(10)
  @Max(86_400)
  leaseSeconds: number = MAINTENANCE_LEASE_DEFAULT_SECONDS;
}
