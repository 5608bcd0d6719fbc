import { type UnavailableLimit } from '@careen/disruption';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import {
  DisruptionSelectorDto,
  IsUnavailableLimit,
  UNAVAILABLE_LIMIT_SCHEMA,
} from './disruption-selector.dto';

/** `PUT …/budgets/{name}`: at most `maxUnavailable` of the covered nodes disrupted at once. */
export class PutBudgetDto {
  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({
    type: DisruptionSelectorDto,
    description: 'which nodes; every node of the org when omitted',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DisruptionSelectorDto)
  selector?: DisruptionSelectorDto;

  @ApiProperty({
    ...UNAVAILABLE_LIMIT_SCHEMA,
    description: 'a count of nodes, or a percentage of those covered (rounded up)',
  })
  @IsUnavailableLimit()
  maxUnavailable!: UnavailableLimit;
}
