/**
 * Splits constraint text into tokens with their offsets. It knows punctuation, quoted strings
 * (single or double quotes, backslash escapes the next character) and words (runs of name
 * characters); which word is a keyword, number or name is the parser's business.
 */
import { NAME_CHARACTER } from '../properties/property-name';
import { ConstraintSyntaxError } from './constraint-syntax.error';

export type TokenKind = 'word' | 'string' | 'symbol' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** A word's or symbol's text; a string's content with escapes resolved. */
  readonly text: string;
  /** The token exactly as written, quotes included. */
  readonly raw: string;
  readonly position: number;
}

const SYMBOLS = ['==', '!=', '<=', '>=', '&&', '||', '=', '<', '>', '!', '(', ')', '[', ']', ','] as const;

export function tokenize(source: string, offset = 0): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (index: number): number => offset + index;

  while (i < source.length) {
    const char = source.charAt(i);
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (char === '"' || char === "'") {
      const start = i;
      let text = '';
      i++;
      while (i < source.length && source[i] !== char) {
        if (source[i] === '\\' && i + 1 < source.length) i++;
        text += source[i];
        i++;
      }
      if (i >= source.length) {
        const raw = source.slice(start);
        throw new ConstraintSyntaxError(
          at(start),
          raw,
          `expected a closing ${char} for the string at position ${at(start)}, found end of input`,
        );
      }
      i++;
      tokens.push({ kind: 'string', text, raw: source.slice(start, i), position: at(start) });
      continue;
    }
    if (NAME_CHARACTER.test(codePointAt(source, i))) {
      const start = i;
      while (i < source.length && NAME_CHARACTER.test(codePointAt(source, i)))
        i += codePointAt(source, i).length;
      const text = source.slice(start, i);
      tokens.push({ kind: 'word', text, raw: text, position: at(start) });
      continue;
    }
    const symbol = SYMBOLS.find((candidate) => source.startsWith(candidate, i));
    if (symbol !== undefined) {
      tokens.push({ kind: 'symbol', text: symbol, raw: symbol, position: at(i) });
      i += symbol.length;
      continue;
    }
    if (char === '&' || char === '|') {
      throw new ConstraintSyntaxError(
        at(i),
        char,
        `expected "${char}${char}" at position ${at(i)}, found "${char}"`,
      );
    }
    const unknown = codePointAt(source, i);
    throw new ConstraintSyntaxError(
      at(i),
      unknown,
      `unknown character at position ${at(i)}, found "${unknown}"`,
    );
  }
  tokens.push({ kind: 'end', text: '', raw: '', position: at(source.length) });
  return tokens;
}

/** The whole character at an index, so letters outside the basic plane stay one character. */
function codePointAt(source: string, index: number): string {
  return String.fromCodePoint(source.codePointAt(index) ?? 0);
}
