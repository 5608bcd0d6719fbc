import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
} from 'class-validator';

/** `POST …/management-policies/{name}/resume` */
export class ResumeRolloutDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 30 * 86_400,
    example: 1800,
    description:
      'seconds over which the nodes that have not started are spread from now; default: what was left of the window when it was paused',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(30 * 86_400)
  window?: number;
}

/** `POST …/management-policies/{name}/reset`: asks the chosen nodes to enact the policy again. */
export class ResetRolloutDto {
  @ApiPropertyOptional({ type: [String], description: 'these nodes' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @ArrayUnique()
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each node must be a node id: ${IDENTIFIER_RULE}` })
  nodes?: string[];

  @ApiPropertyOptional({
    description:
      'every node whose status counts as failed (precheck-failed, failed, rolled-back, rollback-failed)',
  })
  @IsOptional()
  @IsBoolean()
  failed?: boolean;
}
