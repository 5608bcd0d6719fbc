/**
 * Reading a property's raw JSON value in its declared (or inferred) type. Owns the rules for
 * which values fit which type; both validation and the property index go through here, so a
 * value that validates is exactly a value that evaluation can read.
 */
import { parseVersion } from './version';
import { type PropertyType, type TypedProperty } from './property.types';

/** The type Open Horizon infers when a property declares none; undefined when none fits. */
export function inferPropertyType(value: unknown): PropertyType | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
    ? 'list of strings'
    : undefined;
}

export type ReadResult =
  { readonly ok: true; readonly property: TypedProperty } | { readonly ok: false; readonly reason: string };

/** Splits a `list of strings` value; undefined when an item is empty or not a string. */
function readStringList(value: unknown): ReadonlySet<string> | undefined {
  let items: unknown[];
  if (typeof value === 'string') {
    items = value.trim() === '' ? [] : value.split(',');
  } else if (Array.isArray(value)) {
    items = value;
  } else {
    return undefined;
  }
  const result = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string' || item.trim() === '') return undefined;
    result.add(item.trim());
  }
  return result;
}

export function readProperty(name: string, type: PropertyType, value: unknown): ReadResult {
  const article = type === 'int' ? 'an' : 'a';
  const fail = (expected: string): ReadResult => ({
    ok: false,
    reason: `${article} ${type} property needs ${expected}`,
  });
  switch (type) {
    case 'string':
      return typeof value === 'string'
        ? { ok: true, property: { name, type, value } }
        : fail('a string value');
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value)
        ? { ok: true, property: { name, type, value } }
        : fail('a whole number value');
    case 'float':
      return typeof value === 'number' && Number.isFinite(value)
        ? { ok: true, property: { name, type, value } }
        : fail('a finite number value');
    case 'boolean':
      return typeof value === 'boolean'
        ? { ok: true, property: { name, type, value } }
        : fail('true or false');
    case 'version': {
      const parts = typeof value === 'string' ? parseVersion(value) : undefined;
      return parts === undefined
        ? fail('a string of dotted numbers such as "1.2.3"')
        : { ok: true, property: { name, type, value: value as string, parts } };
    }
    case 'list of strings': {
      const items = readStringList(value);
      return items === undefined
        ? fail('an array of non-empty strings or a comma-separated string such as "a,b"')
        : { ok: true, property: { name, type, value: items } };
    }
  }
}
