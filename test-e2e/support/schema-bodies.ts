/**
 * Request bodies made from an OpenAPI schema (fast-check arbitraries): values the schema
 * describes, then mutated as a careless or hostile client would — a required field left out, a
 * field of the wrong type, a field the schema does not know, a string far over any limit — so
 * that validation is tried at its edges and not only with noise.
 */
import fc, { type Arbitrary } from 'fast-check';

export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  oneOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  allOf?: SchemaObject[];
}

export type Components = Record<string, SchemaObject>;

const MAX_DEPTH = 4;

/** Values that `schema` describes (as closely as a generator can: patterns where fast-check reads them). */
export function valuesOf(schema: SchemaObject, components: Components, depth = 0): Arbitrary<unknown> {
  if (schema.$ref) {
    const target = components[schema.$ref.replace('#/components/schemas/', '')];
    return target && depth < MAX_DEPTH
      ? valuesOf(target, components, depth + 1)
      : fc.jsonValue({ maxDepth: 1 });
  }
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return fc.oneof(...alternatives.map((each) => valuesOf(each, components, depth + 1)));
  if (schema.allOf) return valuesOf(schema.allOf[0]!, components, depth + 1);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return schema.pattern ? patterned(schema.pattern) : fc.string({ maxLength: 40 });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000_000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth < MAX_DEPTH
        ? fc.array(valuesOf(schema.items ?? {}, components, depth + 1), { maxLength: 3 })
        : fc.constant([]);
    case 'object':
    case undefined:
      if (!schema.properties) return fc.jsonValue({ maxDepth: 1 });
      return fc.record(
        Object.fromEntries(
          Object.entries(schema.properties).map(([name, property]) => [
            name,
            depth < MAX_DEPTH ? valuesOf(property, components, depth + 1) : fc.constant(null),
          ]),
        ),
        { requiredKeys: schema.required ?? [] },
      );
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Strings matching `pattern`, or any strings when fast-check cannot read it. */
function patterned(pattern: string): Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return fc.string({ maxLength: 40 });
  }
}

const WRONG_TYPES: unknown[] = [null, 42, -1.5, true, 'a string', [], [1, 'two'], { nested: {} }];

/** A value of `schema`, then one thing wrong with it (or nothing, now and then). */
export function mutatedValuesOf(schema: SchemaObject, components: Components): Arbitrary<unknown> {
  return fc
    .tuple(
      valuesOf(schema, components),
      fc.constantFrom(
        'as-is',
        'drop-required',
        'wrong-type',
        'unknown-field',
        'huge-string',
        'not-an-object',
      ),
      fc.nat(),
      fc.constantFrom(...WRONG_TYPES),
    )
    .map(([value, mutation, pick, wrong]) => mutate(value, schema, components, mutation, pick, wrong));
}

function mutate(
  value: unknown,
  schema: SchemaObject,
  components: Components,
  mutation: string,
  pick: number,
  wrong: unknown,
): unknown {
  if (mutation === 'not-an-object') return wrong;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return mutation === 'as-is' ? value : wrong;
  const object = { ...(value as Record<string, unknown>) };
  const resolved = schema.$ref
    ? (components[schema.$ref.replace('#/components/schemas/', '')] ?? {})
    : schema;
  const keys = Object.keys(object);
  switch (mutation) {
    case 'drop-required': {
      const required = resolved.required ?? [];
      if (required.length > 0) delete object[required[pick % required.length]!];
      return object;
    }
    case 'wrong-type':
      if (keys.length > 0) object[keys[pick % keys.length]!] = wrong;
      return object;
    case 'unknown-field':
      return { ...object, [`unknown${pick % 100}`]: wrong };
    case 'huge-string':
      if (keys.length > 0) object[keys[pick % keys.length]!] = 'x'.repeat(200_000);
      return object;
    default:
      return object;
  }
}
