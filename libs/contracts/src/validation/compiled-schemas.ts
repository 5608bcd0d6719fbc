/**
 * Building blocks of the JSON schemas a DTO's compiled check is written in (compiled-check.ts),
 * each matching the class-validator rule named beside it.
 */
import { IDENTIFIER_PATTERN } from '../identifiers';

/** IsString with MaxLength (and MinLength, when `min` is above 0). */
export const text = (max: number, min = 0) => ({
  type: 'string',
  maxChars: max,
  ...(min > 0 && { minChars: min }),
});

/** IsString with Matches(IDENTIFIER_PATTERN). */
export const identifier = { type: 'string', pattern: IDENTIFIER_PATTERN.source };

/** IsISO8601 with `strict`. */
export const isoTime = { type: 'string', format: 'iso8601' };

/** IsInt with Min (and Max, when given). */
export const wholeNumber = (minimum: number, maximum?: number) => ({
  type: 'integer',
  finite: true,
  minimum,
  ...(maximum !== undefined && { maximum }),
});

/** IsOptional: null is taken too (a JSON body cannot carry undefined). */
export const nullable = (schema: object) => ({ anyOf: [{ type: 'null' }, schema] });

/** A DTO's own fields and no others (the pipe's forbidNonWhitelisted). */
export const fieldsOnly = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  additionalProperties: false,
  properties,
  required,
});
