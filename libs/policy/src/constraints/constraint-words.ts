/**
 * How a bare word reads in value position: a number, a boolean, or a string. Shared by the
 * parser and the printer so that a printed value always parses back to the same value.
 */
import { type ScalarValue } from './constraint.ast';

const NUMBER_PATTERN = /^-?\d+(\.\d+)?$/;
const BOOLEAN_PATTERN = /^(true|false)$/i;

export const INFINITY_WORD = 'INFINITY';

export function isNumberText(text: string): boolean {
  return NUMBER_PATTERN.test(text);
}

export function readBareWord(text: string): ScalarValue {
  if (NUMBER_PATTERN.test(text)) return { kind: 'number', text, value: Number(text) };
  if (BOOLEAN_PATTERN.test(text)) return { kind: 'boolean', value: text.toLowerCase() === 'true' };
  return { kind: 'string', value: text };
}
