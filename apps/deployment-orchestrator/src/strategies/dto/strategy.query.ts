import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** `?org=`: an org other than the caller's, for hub admins. */
export class OrgQuery {
  @ApiPropertyOptional({ description: "an org (hub admins); default the caller's" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;
}

/** `?org=&version=`: one version of a strategy, the newest by default. */
export class StrategyVersionQuery extends OrgQuery {
  @ApiPropertyOptional({ description: 'a version of the strategy; default the newest' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  version?: number;
}
