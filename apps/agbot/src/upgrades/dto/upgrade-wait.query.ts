import { CompiledCheck, schema } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Longest a request may wait for its group's slot: well inside common proxy idle timeouts. */
export const MAX_UPGRADE_WAIT_SECONDS = 60;

/** Every agent's ask before it upgrades: its rules compiled once (see CompiledCheck). */
@CompiledCheck(schema.fieldsOnly({ wait: schema.wholeNumber(0, MAX_UPGRADE_WAIT_SECONDS) }))
export class UpgradeWaitQuery {
  @ApiPropertyOptional({
    description:
      'seconds to wait for the slot while another member holds it; the answer comes as soon as it is granted, else 409 at the end',
    default: 0,
    maximum: MAX_UPGRADE_WAIT_SECONDS,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_UPGRADE_WAIT_SECONDS)
  wait = 0;
}
