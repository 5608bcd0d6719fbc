import { IDENTIFIER_PATTERN, IDENTIFIER_RULE, UPGRADE_ACTIONS, type UpgradeAction } from '@careen/contracts';
import { type Property } from '@careen/policy';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsUrl,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { PolicyPropertyDto } from '../../nodes/dto/policy.dto';
import { IsConstraintList, IsPropertyList } from '../../policy-validation/policy.validators';

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
const RFC3339_UTC_OR_NOW = /^(now|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z)$/;
const PATTERN_REFERENCE = /^(\*|([A-Za-z0-9][A-Za-z0-9_-]{0,63}\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;

/**
 * `atLeastVersion`: a semantic version or `current`; with `allowDowngrade` an exact version, as
 * it is then where the nodes go, down included, and `current` would send them wherever the
 * newest package is.
 */
function IsTargetVersion(): PropertyDecorator {
  const downgrading = (args: ValidationArguments) =>
    (args.object as AgentUpgradePolicyDto).allowDowngrade === true;
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTargetVersion',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          typeof value === 'string' && (SEMVER.test(value) || (!downgrading(args) && value === 'current')),
        defaultMessage: (args: ValidationArguments) =>
          downgrading(args)
            ? 'atLeastVersion must be an exact semantic version (1.2.3) when allowDowngrade is true, not "current" or left out'
            : 'atLeastVersion must be a semantic version (1.2.3) or "current"',
      },
    });
}

export class AgentUpgradePolicyDto {
  @ApiPropertyOptional({
    example: '2.31.0',
    description: 'a semver, or `current` (default); with `allowDowngrade` an exact semver',
  })
  // Left out (or null) means `current`, which a downgrade may not follow: then it is required.
  @ValidateIf(
    (policy: AgentUpgradePolicyDto, value) =>
      (value !== undefined && value !== null) || policy.allowDowngrade === true,
  )
  @IsTargetVersion()
  atLeastVersion?: string;

  @ApiPropertyOptional({ example: '2026-12-01T02:00:00Z', description: 'RFC3339 UTC, or `now` (default)' })
  @IsOptional()
  @Matches(RFC3339_UTC_OR_NOW, {
    message: 'start must be an RFC3339 UTC time (2026-12-01T02:00:00Z) or "now"',
  })
  start?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 30 * 86_400,
    example: 3600,
    description: 'seconds over which agents spread their start; default 0',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(30 * 86_400)
  duration?: number;

  @ApiPropertyOptional({
    enum: UPGRADE_ACTIONS,
    description: '`download` stops after verifying; default install',
  })
  @IsOptional()
  @IsIn(UPGRADE_ACTIONS)
  action?: UpgradeAction;

  @ApiPropertyOptional({
    example: 'https://mirror.example.net/careen-agent-2.31.0.tar.gz',
    description:
      "where agents fetch the package instead of the exchange; checked against the package's size, sha256 and signature all the same",
  })
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'location must be an http(s) URL' },
  )
  @MaxLength(2048)
  location?: string;

  @ApiPropertyOptional({
    default: false,
    description:
      'the version is exact, not a floor: nodes running a higher one go down to it (a rollback); needs an exact `atLeastVersion`',
  })
  @IsOptional()
  @IsBoolean({ message: 'allowDowngrade must be true or false' })
  allowDowngrade?: boolean;
}

/** `PUT /v1/orgs/{org}/management-policies/{name}`: creates or fully replaces the policy. */
export class ManagementPolicyDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  label?: string;

  @ApiPropertyOptional({ maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string;

  @ApiPropertyOptional({ type: [String], example: ['careen.arch == amd64'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsConstraintList()
  constraints?: string[];

  @ApiPropertyOptional({
    type: [PolicyPropertyDto],
    maxItems: 100,
    description: "properties the nodes' constraints are checked against",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsPropertyList()
  properties?: Property[];

  @ApiPropertyOptional({ type: [String], example: ['*', 'acme/gateway'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @Matches(PATTERN_REFERENCE, { each: true, message: 'each pattern must be "*", "pattern" or "org/pattern"' })
  patterns?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'node ids it applies to, besides any it selects by pattern or policy',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @ArrayUnique()
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each node must be a node id: ${IDENTIFIER_RULE}` })
  nodes?: string[];

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ type: AgentUpgradePolicyDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AgentUpgradePolicyDto)
  agentUpgradePolicy?: AgentUpgradePolicyDto;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'disable the policy once this many of its nodes have failed',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  failureThreshold?: number;

  @ApiPropertyOptional({
    description: 'confirms publishing a policy that selects every node (empty constraints or "*" patterns)',
  })
  @IsOptional()
  @IsBoolean()
  allowDisruptive?: boolean;
}
