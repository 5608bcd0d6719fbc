/**
 * Validation of a property array as a client sends it: every problem is reported with the
 * index and (when readable) the name of the property, so an API can answer 400 naming each.
 * It never throws and never alters the input.
 */
import { isPropertyName } from './property-name';
import { inferPropertyType, readProperty } from './property-values';
import { PROPERTY_TYPES, isPropertyType } from './property.types';

export type PropertyProblemCode =
  | 'not-an-object'
  | 'invalid-name'
  | 'missing-value'
  | 'unknown-type'
  | 'type-mismatch'
  | 'uninferable-type'
  | 'duplicate-name';

export interface PropertyProblem {
  readonly index: number;
  readonly name?: string;
  readonly code: PropertyProblemCode;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function validateProperties(properties: readonly unknown[]): PropertyProblem[] {
  const problems: PropertyProblem[] = [];
  const firstIndexByName = new Map<string, number>();

  properties.forEach((property, index) => {
    if (!isRecord(property)) {
      problems.push({
        index,
        code: 'not-an-object',
        message: `property ${index} is not an object with name and value`,
      });
      return;
    }
    const { name, value, type } = property;
    if (typeof name !== 'string' || !isPropertyName(name)) {
      problems.push({
        index,
        ...(typeof name === 'string' ? { name } : {}),
        code: 'invalid-name',
        message: `property ${index} has an invalid name ${JSON.stringify(name) ?? 'undefined'}: use letters, digits, ".", "_", "-" or "/", and not AND, OR or NOT`,
      });
    } else {
      const first = firstIndexByName.get(name);
      if (first === undefined) {
        firstIndexByName.set(name, index);
      } else {
        problems.push({
          index,
          name,
          code: 'duplicate-name',
          message: `property ${index} "${name}" repeats the name of property ${first}`,
        });
      }
    }

    const label = typeof name === 'string' ? `property ${index} "${name}"` : `property ${index}`;
    const named = typeof name === 'string' ? { name } : {};
    if (value === undefined || value === null) {
      problems.push({ index, ...named, code: 'missing-value', message: `${label} has no value` });
      return;
    }
    if (type !== undefined && !isPropertyType(type)) {
      problems.push({
        index,
        ...named,
        code: 'unknown-type',
        message: `${label} has an unknown type ${JSON.stringify(type)}; the types are ${PROPERTY_TYPES.map((t) => `"${t}"`).join(', ')}`,
      });
      return;
    }
    const effectiveType = type ?? inferPropertyType(value);
    if (effectiveType === undefined) {
      problems.push({
        index,
        ...named,
        code: 'uninferable-type',
        message: `${label} has a value of no property type; give a string, number, boolean or array of strings`,
      });
      return;
    }
    const read = readProperty(typeof name === 'string' ? name : '', effectiveType, value);
    if (!read.ok) {
      problems.push({
        index,
        ...named,
        code: 'type-mismatch',
        message: `${label}: ${read.reason}, got ${JSON.stringify(value)}`,
      });
    }
  });
  return problems;
}
