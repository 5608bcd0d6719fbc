import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

export class HaltResetDto {
  @ApiPropertyOptional({
    example: 'edge-17',
    description: "end only this member's halt; left out, every halt of the group ends",
  })
  @IsOptional()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `node must be ${IDENTIFIER_RULE}` })
  node?: string;
}
