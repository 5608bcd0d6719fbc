import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class CreateOrgDto {
  @ApiProperty({ example: 'acme', description: IDENTIFIER_RULE })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `id must be ${IDENTIFIER_RULE}` })
  id!: string;

  @ApiPropertyOptional({ example: 'Acme Telecom' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  label?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "Defaults for agent upgrades of this org's nodes",
  })
  @IsOptional()
  @IsObject()
  upgradeDefaults?: Record<string, unknown>;
}
