import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { type UnavailableLimit } from '@careen/disruption';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import {
  IsUnavailableLimit,
  UNAVAILABLE_LIMIT_SCHEMA,
} from '../../disruption-controls/dto/disruption-selector.dto';

const MAX_MEMBERS = 1000;

/** `PUT …/hagroups/{name}`: a full replace of the description and members. */
export class ReplaceHaGroupDto {
  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiProperty({ type: [String], description: 'node ids of the org; a node may be in one group only' })
  @IsArray()
  @ArrayMaxSize(MAX_MEMBERS)
  @ArrayUnique({ message: 'members must not repeat a node' })
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each member must be a node id: ${IDENTIFIER_RULE}` })
  members!: string[];

  @ApiPropertyOptional({
    ...UNAVAILABLE_LIMIT_SCHEMA,
    description:
      'members disrupted at once: a count or a percentage of the members (rounded up); 1 when omitted',
  })
  @IsOptional()
  @IsUnavailableLimit()
  maxUnavailable?: UnavailableLimit;
}

export class CreateHaGroupDto extends ReplaceHaGroupDto {
  @ApiProperty({ example: 'edge-pair-1', description: IDENTIFIER_RULE })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `name must be ${IDENTIFIER_RULE}` })
  name!: string;
}
