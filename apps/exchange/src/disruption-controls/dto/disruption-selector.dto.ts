import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { type DisruptionSelector, limitProblem } from '@careen/disruption';
import { IsLabelMap } from '../../nodes/dto/field-rules';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';

/** Which nodes a control covers: the criteria intersect; none given covers every node of the org. */
export class DisruptionSelectorDto implements DisruptionSelector {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { site: 'ams' },
    description: 'every label must match',
  })
  @IsOptional()
  @IsObject()
  @IsLabelMap()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: [String], example: ['r1'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(256, { each: true })
  racks?: string[];

  @ApiPropertyOptional({ type: [String], example: ['line-1'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each HA group must be ${IDENTIFIER_RULE}` })
  haGroups?: string[];

  @ApiPropertyOptional({ type: [String], example: ['edge-1'], description: 'node ids' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each node must be ${IDENTIFIER_RULE}` })
  nodes?: string[];
}

/** The stored form of a selector: only the criteria given, label values as strings. */
export function toStoredSelector(selector: DisruptionSelectorDto | undefined): DisruptionSelector {
  const stored: DisruptionSelector = {};
  if (selector?.labels && Object.keys(selector.labels).length > 0) stored.labels = selector.labels;
  if (selector?.racks?.length) stored.racks = selector.racks;
  if (selector?.haGroups?.length) stored.haGroups = selector.haGroups;
  if (selector?.nodes?.length) stored.nodes = selector.nodes;
  return stored;
}

export const UNAVAILABLE_LIMIT_SCHEMA = {
  oneOf: [
    { type: 'integer', minimum: 1, maximum: 100_000 },
    { type: 'string', pattern: '^(100|[1-9][0-9]?)%$' },
  ],
  example: '10%',
};

/** A count of nodes (≥ 1) or a percentage such as "10%" (limitProblem). */
export function IsUnavailableLimit(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isUnavailableLimit',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => limitProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} ${limitProblem(args.value)}`,
      },
    });
}
