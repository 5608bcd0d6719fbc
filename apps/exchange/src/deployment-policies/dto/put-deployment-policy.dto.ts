import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import {
  IsOmittable,
  MAX_CONSTRAINT_LENGTH,
  MAX_CONSTRAINTS,
  MAX_PROPERTIES,
} from '../../nodes/dto/field-rules';
import { PolicyPropertyDto } from '../../nodes/dto/policy.dto';
import { SERVICE_URL_PATTERN } from '../../services/dto/put-service.dto';
import { IsVersionRange } from '../../services/dto/semver-rules';
import { IsConstraintList, IsPropertyList } from '../../policy-validation/policy.validators';

export const PLACEMENT_MODES = ['all', 'replicas'] as const;
export type PlacementMode = (typeof PLACEMENT_MODES)[number];
export const MAX_REPLICAS = 100_000;

/** `replicas` is required (1..MAX_REPLICAS) with mode `replicas` and forbidden with mode `all`. */
function IsReplicasForMode(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isReplicasForMode',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const { mode } = args.object as { mode?: unknown };
          if (mode === 'replicas')
            return (
              typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_REPLICAS
            );
          if (mode === 'all') return value === undefined;
          return true;
        },
        defaultMessage(args: ValidationArguments): string {
          const { mode } = args.object as { mode?: unknown };
          return mode === 'all'
            ? 'replicas is forbidden when mode is "all"'
            : `replicas must be an integer from 1 to ${MAX_REPLICAS} when mode is "replicas"`;
        },
      },
    });
}

export class PlacementDto {
  @ApiProperty({ enum: PLACEMENT_MODES, description: '`all` compatible nodes, or a number of `replicas`' })
  @IsIn(PLACEMENT_MODES)
  mode!: PlacementMode;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_REPLICAS,
    description: 'required when mode is replicas',
  })
  @IsReplicasForMode()
  replicas?: number;
}

export class DeploymentServiceDto {
  @ApiProperty({ example: 'acme', description: 'the org that publishes the service' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org!: string;

  @ApiProperty({ example: 'acme.gateway' })
  @IsString()
  @Matches(SERVICE_URL_PATTERN, { message: 'url must be 1-256 characters without whitespace' })
  url!: string;

  @ApiProperty({
    example: '>=1.2.0 <2.0.0',
    description: 'a semver range, or an Open Horizon interval such as `[1.0.0,INFINITY)`',
  })
  @IsVersionRange()
  versionRange!: string;
}

/** PUT: creates the deployment policy or replaces every field of it. */
export class PutDeploymentPolicyDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiProperty({
    example: 'gateways',
    description: `the project its workloads belong to; ${IDENTIFIER_RULE}`,
  })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `project must be ${IDENTIFIER_RULE}` })
  project!: string;

  @ApiProperty({ type: DeploymentServiceDto })
  @IsObject()
  @ValidateNested()
  @Type(() => DeploymentServiceDto)
  service!: DeploymentServiceDto;

  @ApiPropertyOptional({ type: [PolicyPropertyDto], maxItems: MAX_PROPERTIES })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(MAX_PROPERTIES)
  @ValidateNested({ each: true })
  @Type(() => PolicyPropertyDto)
  @IsPropertyList({ alongsideShapeChecks: true })
  properties?: PolicyPropertyDto[];

  @ApiPropertyOptional({ type: [String], maxItems: MAX_CONSTRAINTS, example: ['careen.arch == amd64'] })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(MAX_CONSTRAINTS)
  @IsString({ each: true })
  @MaxLength(MAX_CONSTRAINT_LENGTH, { each: true })
  @IsConstraintList()
  constraints?: string[];

  @ApiProperty({ type: PlacementDto })
  @IsObject()
  @ValidateNested()
  @Type(() => PlacementDto)
  placement!: PlacementDto;
}
