import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** `GET …/management-policies/{name}/statuses`: one page of the nodes' statuses, by node id. */
export class ManagementStatusPageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ description: 'the last node id of the previous page (its `next`)' })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `after must be a node id: ${IDENTIFIER_RULE}` })
  after?: string;
}
