import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CompiledCheck, schema } from '@careen/contracts';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';

/** Every agent's ask before it upgrades: its rules compiled once (see CompiledCheck). */
@CompiledCheck(
  schema.fieldsOnly({ managementPolicy: schema.identifier, renew: schema.nullable({ type: 'boolean' }) }, [
    'managementPolicy',
  ]),
)
export class UpgradeRequestDto {
  @ApiProperty({ example: 'upgrade-agents', description: 'the node management policy being enacted' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `managementPolicy must be ${IDENTIFIER_RULE}` })
  managementPolicy!: string;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'only extend the lease of a grant the node holds for this policy; never a new grant (404 when none is held)',
  })
  @IsOptional()
  @IsBoolean()
  renew = false;
}
