import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  registerDecorator,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { valid } from 'semver';

const SERVICE_URL_PATTERN = /^\S{1,256}$/;

/**
 * On `deploymentPolicy`: it is an identifier, and exactly one of it and `service` is given.
 * Checked here rather than with @IsOptional, which would skip the rule when both are missing.
 */
function IsDeploymentPolicyOrService(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDeploymentPolicyOrService',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const { service } = args.object as { service?: unknown };
          if (value === undefined) return service !== undefined;
          return service === undefined && typeof value === 'string' && IDENTIFIER_PATTERN.test(value);
        },
        defaultMessage(args: ValidationArguments): string {
          const { service } = args.object as { service?: unknown };
          return (args.value === undefined) === (service === undefined)
            ? 'give exactly one of deploymentPolicy and service'
            : `deploymentPolicy must be ${IDENTIFIER_RULE}`;
        },
      },
    });
}

function IsSemanticVersion(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSemanticVersion',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value === 'string' && valid(value) === value,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a semantic version such as 1.4.2`,
      },
    });
}

export class DeployCheckServiceDto {
  @ApiPropertyOptional({ example: 'acme', description: "the service's org (default: the org checked)" })
  @IsOptional()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;

  @ApiProperty({ example: 'acme.gateway' })
  @IsString()
  @Matches(SERVICE_URL_PATTERN, { message: 'url must be 1-256 characters without whitespace' })
  url!: string;

  @ApiPropertyOptional({ example: '1.4.2', description: 'a version of the service (default: its newest)' })
  @IsOptional()
  @IsSemanticVersion()
  version?: string;
}

/** POST /v1/orgs/{org}/deploycheck: exactly one of deploymentPolicy and service. */
export class DeployCheckDto {
  @ApiPropertyOptional({ example: 'gateway-eu', description: 'a deployment policy of the org' })
  @IsDeploymentPolicyOrService()
  deploymentPolicy?: string;

  @ApiPropertyOptional({
    type: DeployCheckServiceDto,
    description: 'a service of the org, instead of a policy',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DeployCheckServiceDto)
  service?: DeployCheckServiceDto;

  @ApiPropertyOptional({ default: false, description: 'judge the HA groups of the nodes checked' })
  @IsOptional()
  @IsBoolean()
  checkHA?: boolean;

  @ApiPropertyOptional({ example: 'line-1', description: 'check the members of this HA group only' })
  @IsOptional()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `haGroup must be ${IDENTIFIER_RULE}` })
  haGroup?: string;

  @ApiPropertyOptional({
    example: 'edge-1',
    description: 'check this node only (with checkHA, its group too)',
  })
  @IsOptional()
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `node must be ${IDENTIFIER_RULE}` })
  node?: string;
}
