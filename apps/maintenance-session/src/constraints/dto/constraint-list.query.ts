import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

/** The org a constraint route acts on. */
export class ConstraintOrgQuery {
  @ApiPropertyOptional({ description: "an org (hub admins); default the caller's" })
  @IsOptional()
  @IsString()
  org?: string;
}

export class ConstraintListQuery extends ConstraintOrgQuery {
  @ApiPropertyOptional({ description: "one project's only" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `project_id must be ${IDENTIFIER_RULE}` })
  project_id?: string;
}
