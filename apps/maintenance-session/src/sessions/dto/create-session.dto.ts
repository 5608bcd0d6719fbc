/**
 * `POST /v1/maintenance` (and the bus request): Careen's fields in Doctor's snake_case, and
 * Fenix's admin request as Fenix tools send it (`maintenance_at`, `workflow`, `state`).
 */
import {
  IDENTIFIER_PATTERN,
  IDENTIFIER_RULE,
  REPLY_TIMEOUT_POLICIES,
  type ReplyTimeoutPolicy,
} from '@careen/contracts';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { HOST_ACTION_KINDS, type HostActionKind } from '../session-record';

export const MAX_SESSION_HOSTS = 10_000;

export class HostSelectorDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { zone: 'north' },
    description: 'every label must match',
  })
  @IsOptional()
  @IsObject()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: [String], example: ['r1'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  racks?: string[];

  @ApiPropertyOptional({ type: [String], example: ['line-1'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  ha_groups?: string[];
}

export class HostActionDto {
  @ApiProperty({ enum: HOST_ACTION_KINDS })
  @IsIn(HOST_ACTION_KINDS)
  kind!: HostActionKind;

  @ApiPropertyOptional({ description: '`simulated`: seconds the host stays in maintenance', default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(86_400)
  seconds?: number;

  @ApiPropertyOptional({
    description: '`agent-upgrade`: the agent version to roll the host to',
    example: '2.0.0',
  })
  @IsOptional()
  @IsString()
  @Matches(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, {
    message: 'version must be a semantic version such as 2.0.0',
  })
  version?: string;
}

export class ProjectSettingsDto {
  @ApiPropertyOptional({ description: 'seconds this project has to answer each state' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400)
  reply_timeout_seconds?: number;

  @ApiPropertyOptional({ enum: REPLY_TIMEOUT_POLICIES })
  @IsOptional()
  @IsIn(REPLY_TIMEOUT_POLICIES)
  reply_timeout_policy?: ReplyTimeoutPolicy;
}

@ApiExtraModels(ProjectSettingsDto)
export class CreateSessionDto {
  @ApiPropertyOptional({ description: "the org whose nodes are maintained (default: the caller's)" })
  @IsOptional()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'node ids; or give selector',
    example: ['edge-1', 'edge-2'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_SESSION_HOSTS)
  @IsString({ each: true })
  hosts?: string[];

  @ApiPropertyOptional({ type: HostSelectorDto, description: 'criteria intersect; at least one is needed' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => HostSelectorDto)
  selector?: HostSelectorDto;

  @ApiPropertyOptional({
    description: 'when the hosts start going (the MAINTENANCE replies are due); default now',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  actions_at?: string;

  @ApiPropertyOptional({ description: "Fenix's name for actions_at" })
  @IsOptional()
  @IsISO8601({ strict: true })
  maintenance_at?: string;

  @ApiPropertyOptional({ description: "Fenix's workflow name; kept in the session's metadata" })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  workflow?: string;

  @ApiPropertyOptional({ enum: ['MAINTENANCE'], description: "Fenix's admin request state" })
  @IsOptional()
  @IsIn(['MAINTENANCE'])
  state?: 'MAINTENANCE';

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'passed to the projects in every event',
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: HostActionDto,
    description: 'what is done to an empty host: a kind name, or {kind, seconds, version}; default manual',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? plainToInstance(HostActionDto, { kind: value })
      : typeof value === 'object' && value !== null && !Array.isArray(value)
        ? plainToInstance(HostActionDto, value)
        : value,
  )
  @IsObject()
  @ValidateNested()
  host_action?: HostActionDto;

  @ApiPropertyOptional({ default: 60, description: 'seconds a project has to answer a state' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400)
  reply_timeout_seconds?: number;

  @ApiPropertyOptional({ enum: REPLY_TIMEOUT_POLICIES, default: 'proceed' })
  @IsOptional()
  @IsIn(REPLY_TIMEOUT_POLICIES)
  reply_timeout_policy?: ReplyTimeoutPolicy;

  @ApiPropertyOptional({ default: 1, description: 'hosts of different HA groups maintained at once' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  max_parallel_hosts?: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ProjectSettingsDto) },
    description: 'per project: its own reply timeout and policy',
  })
  @IsOptional()
  @IsObject()
  projects?: Record<string, ProjectSettingsDto>;
}
