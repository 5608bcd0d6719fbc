import { SCOPES, type Scope } from '@careen/auth';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** Longest a key may live, and the default. */
export const MAX_KEY_DAYS = 365;
export const DEFAULT_KEY_DAYS = 90;
/** Longest the previous key keeps working beside a rotated one: a week. */
export const MAX_OVERLAP_SECONDS = 604_800;

export class CreateServiceAccountDto {
  @ApiProperty({ example: 'deploy-pipeline', description: IDENTIFIER_RULE })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `name must be ${IDENTIFIER_RULE}` })
  name!: string;

  @ApiPropertyOptional({ maxLength: 500, example: 'the CI pipeline that starts rollouts' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

/** How long a new key lasts. */
class KeyLifetimeDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_KEY_DAYS, default: DEFAULT_KEY_DAYS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_KEY_DAYS)
  expiresInDays?: number;
}

export class CreateApiKeyDto extends KeyLifetimeDto {
  @ApiProperty({
    type: [String],
    enum: SCOPES,
    example: ['rollouts:write', 'nodes:read'],
    description: '`<resource>:read` or `<resource>:write` (write allows reading too)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SCOPES.length)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true, message: `each value in scopes must be one of: ${SCOPES.join(', ')}` })
  scopes!: Scope[];

  @ApiPropertyOptional({
    type: [String],
    example: ['shop'],
    description:
      "limit the key to these projects (a VNF manager's): it may then call only routes that act on one project, for these; absent: the whole org",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each project must be ${IDENTIFIER_RULE}` })
  projects?: string[];
}

export class RotateApiKeyDto extends KeyLifetimeDto {
  @ApiProperty({
    minimum: 0,
    maximum: MAX_OVERLAP_SECONDS,
    description: 'seconds the previous key keeps working beside the new one, while its users switch',
  })
  @IsInt()
  @Min(0)
  @Max(MAX_OVERLAP_SECONDS)
  overlapSeconds!: number;
}
