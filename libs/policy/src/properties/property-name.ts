/**
 * What a property name may be: the characters the constraint language reads as a name
 * (letters, digits, `.`, `_`, `-`, `/`), and not one of its logical keywords, so that every
 * valid property can be referenced by a constraint.
 */

export const NAME_CHARACTER = /[\p{L}\p{N}._\-/]/u;
const NAME_PATTERN = /^[\p{L}\p{N}._\-/]+$/u;

/** Words that join expressions and therefore cannot name a property. */
export const RESERVED_WORDS: readonly string[] = ['AND', 'OR', 'NOT'];

export function isPropertyName(name: string): boolean {
  return NAME_PATTERN.test(name) && !RESERVED_WORDS.includes(name);
}
