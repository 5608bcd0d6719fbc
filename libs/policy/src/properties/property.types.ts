/**
 * The shape of policy properties: statements of fact about a node, a deployment policy or a
 * management policy, as name/value pairs with an optional declared type. Owns the type names
 * and the typed form the evaluator reads; it never decides whether a constraint holds.
 */

export const PROPERTY_TYPES = ['string', 'int', 'float', 'boolean', 'version', 'list of strings'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** A value as it arrives in JSON; a `list of strings` may be an array or a comma-separated string. */
export type PropertyValue = string | number | boolean | readonly string[];

export interface Property {
  readonly name: string;
  readonly value: PropertyValue;
  /** When absent, the type is inferred from the value: number → int or float, boolean, string. */
  readonly type?: PropertyType;
}

/** Dotted numeric segments with trailing zeros dropped, so `1.2` and `1.2.0` are the same array. */
export type VersionParts = readonly number[];

/** A property read in its type, ready for comparisons. */
export type TypedProperty =
  | { readonly name: string; readonly type: 'string'; readonly value: string }
  | { readonly name: string; readonly type: 'int' | 'float'; readonly value: number }
  | { readonly name: string; readonly type: 'boolean'; readonly value: boolean }
  | { readonly name: string; readonly type: 'version'; readonly value: string; readonly parts: VersionParts }
  | { readonly name: string; readonly type: 'list of strings'; readonly value: ReadonlySet<string> };

/** Properties by name: what evaluation reads. Build it once per node and reuse it. */
export type PropertyIndex = ReadonlyMap<string, TypedProperty>;

export function isPropertyType(type: unknown): type is PropertyType {
  return typeof type === 'string' && (PROPERTY_TYPES as readonly string[]).includes(type);
}
