import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

export class ConstraintListQuery {
  @ApiPropertyOptional({ description: "an org (hub admins); default the caller's" })
  @IsOptional()
  @IsString()
  org?: string;

  @ApiPropertyOptional({ description: "one project's only" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `project_id must be ${IDENTIFIER_RULE}` })
  project_id?: string;
}
