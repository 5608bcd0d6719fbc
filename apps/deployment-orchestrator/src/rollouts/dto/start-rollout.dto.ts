import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** `POST /v1/rollouts` */
export class StartRolloutDto {
  @ApiProperty({ example: 'deployment-strategy' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `strategy must be a strategy name: ${IDENTIFIER_RULE}` })
  strategy!: string;

  @ApiPropertyOptional({ description: 'a version of the strategy; default the newest' })
  @IsOptional()
  @IsInt()
  @Min(1)
  strategy_version?: number;

  @ApiProperty({ example: '2.31.0', description: 'the agent version to take the nodes to' })
  @IsString()
  @Matches(SEMVER, { message: 'version must be a semantic version (1.2.3)' })
  version!: string;

  @ApiPropertyOptional({
    example: 3600,
    description: "seconds a group's phase may take; nodes without an answer by then count as failed",
  })
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(7 * 86_400)
  phase_timeout_seconds?: number;

  @ApiPropertyOptional({
    default: false,
    description:
      'take nodes running a higher version down to this one (a rollback); without it a rollout over such nodes is refused with 409 naming them',
  })
  @IsOptional()
  @IsBoolean({ message: 'allow_downgrade must be true or false' })
  allow_downgrade?: boolean;

  @ApiPropertyOptional({ description: "the org (hub admins); default the caller's" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;
}
