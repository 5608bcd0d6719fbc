import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

export class ListNodesQuery {
  @ApiPropertyOptional({ description: 'only members of this HA group' })
  @IsOptional()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `haGroup must be ${IDENTIFIER_RULE}` })
  haGroup?: string;

  @ApiPropertyOptional({
    type: [String],
    description: '`key=value` (label equals) or `key` (label present); repeat to require all',
    example: ['zone=eu-1'],
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(320, { each: true })
  label?: string[];
}
