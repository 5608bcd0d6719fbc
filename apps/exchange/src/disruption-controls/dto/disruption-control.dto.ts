import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { DisruptionSelectorDto } from './disruption-selector.dto';

/** What every control's body takes besides its own settings: words for people, and its nodes. */
export class DisruptionControlDto {
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
}
