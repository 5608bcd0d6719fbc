import { type UnavailableLimit } from '@careen/disruption';
import { ApiProperty } from '@nestjs/swagger';

import { DisruptionControlDto } from './disruption-control.dto';
import { IsUnavailableLimit, UNAVAILABLE_LIMIT_SCHEMA } from './disruption-selector.dto';

/** `PUT …/budgets/{name}`: at most `maxUnavailable` of the covered nodes disrupted at once. */
export class PutBudgetDto extends DisruptionControlDto {
  @ApiProperty({
    ...UNAVAILABLE_LIMIT_SCHEMA,
    description: 'a count of nodes, or a percentage of those covered (rounded up)',
  })
  @IsUnavailableLimit()
  maxUnavailable!: UnavailableLimit;
}
