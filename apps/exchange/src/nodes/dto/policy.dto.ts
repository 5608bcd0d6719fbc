import { PROPERTY_TYPES, type PropertyType } from '@careen/policy';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import {
  IsOmittable,
  IsPropertyValue,
  MAX_CONSTRAINT_LENGTH,
  MAX_CONSTRAINTS,
  MAX_PROPERTIES,
} from './field-rules';
import { PROPERTY_VALUE_SCHEMA } from '../../policy-validation/dto/property.response';
import { IsConstraintList, IsPropertyList } from '../../policy-validation/policy.validators';

export type PropertyValue = string | number | boolean | string[];

export class PolicyPropertyDto {
  @ApiProperty({ example: 'careen.arch' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name!: string;

  @ApiProperty(PROPERTY_VALUE_SCHEMA)
  @IsPropertyValue()
  value!: PropertyValue;

  @ApiPropertyOptional({ enum: PROPERTY_TYPES })
  @IsOmittable()
  @IsIn(PROPERTY_TYPES)
  type?: PropertyType;
}

/** Properties the other side's constraints are checked against, and constraints on the other side. */
export class PolicyDto {
  @ApiPropertyOptional({ type: [PolicyPropertyDto], maxItems: MAX_PROPERTIES })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(MAX_PROPERTIES)
  @ValidateNested({ each: true })
  @Type(() => PolicyPropertyDto)
  @IsPropertyList({ alongsideShapeChecks: true })
  properties?: PolicyPropertyDto[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_CONSTRAINTS,
    example: ['careen.arch == amd64 && zone in "eu-1,eu-2"'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(MAX_CONSTRAINTS)
  @IsString({ each: true })
  @MaxLength(MAX_CONSTRAINT_LENGTH, { each: true })
  @IsConstraintList()
  constraints?: string[];
}

/** A policy as stored and answered: both lists always present. */
export interface StoredPolicy {
  properties: { name: string; value: PropertyValue; type?: PropertyType }[];
  constraints: string[];
}

export function toStoredPolicy(policy: PolicyDto | undefined): StoredPolicy {
  return {
    properties: (policy?.properties ?? []).map((property) => ({
      name: property.name,
      value: property.value,
      ...(property.type ? { type: property.type } : {}),
    })),
    constraints: [...(policy?.constraints ?? [])],
  };
}
