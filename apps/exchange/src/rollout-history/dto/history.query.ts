import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

class HistoryPageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ description: 'the `next` of the previous page: entries older than this id' })
  @IsOptional()
  @Matches(/^[1-9]\d{0,18}$/, { message: 'before must be an entry id (a positive whole number)' })
  before?: string;
}

/** `GET /v1/orgs/{org}/nodes/{id}/history` */
export class NodeHistoryQuery extends HistoryPageQuery {
  @ApiPropertyOptional({ description: 'only this management policy' })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `nmp must be ${IDENTIFIER_RULE}` })
  nmp?: string;
}

/** `GET /v1/orgs/{org}/management-policies/{name}/history` */
export class PolicyHistoryQuery extends HistoryPageQuery {
  @ApiPropertyOptional({ description: "only this node's statuses" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `node must be ${IDENTIFIER_RULE}` })
  node?: string;
}
