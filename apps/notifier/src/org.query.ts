import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';

/** `?org=`: another org than the caller's (hub admins). */
export class OrgQuery {
  @ApiPropertyOptional({ description: "an org (hub admins); default the caller's" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;
}
