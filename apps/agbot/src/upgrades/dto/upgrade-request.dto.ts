import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

export class UpgradeRequestDto {
  @ApiProperty({ example: 'upgrade-agents', description: 'the node management policy being enacted' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `managementPolicy must be ${IDENTIFIER_RULE}` })
  managementPolicy!: string;
}
