/**
 * The index evaluation reads: properties by name, each read in its type. Built once per node
 * or policy and reused across every constraint it is checked against. A property whose value
 * does not fit its type, or that repeats an earlier name, is left out (validation reports it).
 */
import { inferPropertyType, readProperty } from './property-values';
import { type Property, type PropertyIndex, type TypedProperty } from './property.types';

export function indexProperties(properties: readonly Property[]): PropertyIndex {
  const index = new Map<string, TypedProperty>();
  for (const property of properties) {
    if (index.has(property.name)) continue;
    const type = property.type ?? inferPropertyType(property.value);
    if (type === undefined) continue;
    const read = readProperty(property.name, type, property.value);
    if (read.ok) index.set(property.name, read.property);
  }
  return index;
}

/** Accepts either form, so callers with a prebuilt index skip the indexing. */
export function asPropertyIndex(properties: readonly Property[] | PropertyIndex): PropertyIndex {
  return isPropertyArray(properties) ? indexProperties(properties) : properties;
}

function isPropertyArray(properties: readonly Property[] | PropertyIndex): properties is readonly Property[] {
  return Array.isArray(properties);
}
