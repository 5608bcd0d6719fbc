import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsLabelMap, IsOmittable } from './field-rules';
import { PolicyDto } from './policy.dto';

export const PATTERN_RULE = "a pattern name, or 'org/pattern' (letters, digits, '.', '_' or '-')";
export const PATTERN_PATTERN = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63}\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Fields of a node that its registrant may set. In PUT (register/update) an absent field keeps
 * its stored value (or its default on creation); `null` clears `pattern` and `rack`.
 */
export class NodeFieldsDto {
  @ApiPropertyOptional({ example: 'edge-17 in Lyon', maxLength: 200 })
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: String, example: 'acme/gateway', description: PATTERN_RULE, nullable: true })
  @IsOptional()
  @IsString()
  @Matches(PATTERN_PATTERN, { message: `pattern must be ${PATTERN_RULE}` })
  pattern?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { zone: 'eu-1' },
    description: 'string values keyed by label key',
  })
  @IsOmittable()
  @IsLabelMap()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: [String], example: ['lab'] })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ type: String, example: 'rack-3', nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  rack?: string | null;
}

export class RegisterNodeDto extends NodeFieldsDto {
  @ApiPropertyOptional({
    description: 'the node token (8-256 characters); generated when absent at registration',
    minLength: 8,
    maxLength: 256,
  })
  @IsOmittable()
  @IsString()
  @MinLength(8)
  @MaxLength(256)
  token?: string;

  @ApiPropertyOptional({ type: PolicyDto })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyDto)
  policy?: PolicyDto;
}
