import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { CompiledCheck, schema } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from './field-rules';

export class WorkloadServiceDto {
  @ApiProperty({ example: 'acme' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org!: string;

  @ApiProperty({ example: 'acme.gateway' })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  url!: string;

  @ApiProperty({ example: '1.4.2' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  version!: string;
}

export class ActualWorkloadDto {
  @ApiPropertyOptional({ example: 'gateway-eu' })
  @IsOmittable()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `deploymentPolicy must be ${IDENTIFIER_RULE}` })
  deploymentPolicy?: string;

  @ApiProperty({ type: WorkloadServiceDto })
  @IsObject()
  @ValidateNested()
  @Type(() => WorkloadServiceDto)
  service!: WorkloadServiceDto;

  @ApiPropertyOptional({ example: 'running' })
  @IsOmittable()
  @IsString()
  @MaxLength(64)
  state?: string;
}

export class AgentVersionDto {
  @ApiPropertyOptional({ example: '2.31.0', description: 'the agent package version running' })
  @IsOmittable()
  @IsString()
  @MaxLength(64)
  package?: string;

  @ApiPropertyOptional({
    type: String,
    example: '2.32.0',
    description: 'a version whose install failed',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  failed?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'an ISO 8601 date or time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  upgradeStart?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'an ISO 8601 date or time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  upgradeEnd?: string | null;
}

const { text, isoTime, nullable, fieldsOnly } = schema;
const identifier = { type: 'string', pattern: IDENTIFIER_PATTERN.source };

/**
 * PUT by the node itself: a full replacement of what it reports. lastHeartbeat is set by the
 * exchange. Every agent reports it: its rules are compiled once (see CompiledCheck).
 */
@CompiledCheck(
  fieldsOnly({
    agentVersion: fieldsOnly({
      package: text(64),
      failed: nullable(text(64)),
      upgradeStart: nullable(isoTime),
      upgradeEnd: nullable(isoTime),
    }),
    workloads: {
      type: 'array',
      maxItems: 1000,
      items: fieldsOnly(
        {
          deploymentPolicy: identifier,
          service: fieldsOnly({ org: identifier, url: text(256, 1), version: text(64, 1) }, [
            'org',
            'url',
            'version',
          ]),
          state: text(64),
        },
        ['service'],
      ),
    },
  }),
)
export class NodeStatusDto {
  @ApiPropertyOptional({ type: AgentVersionDto })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => AgentVersionDto)
  agentVersion?: AgentVersionDto;

  @ApiPropertyOptional({ type: [ActualWorkloadDto] })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => ActualWorkloadDto)
  workloads?: ActualWorkloadDto[];
}
