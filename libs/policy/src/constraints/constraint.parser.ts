/**
 * Recursive-descent parser of the constraint language. Precedence, loosest first:
 * OR (`||`), AND (`&&`), NOT (`!`), then a comparison, a parenthesised expression or a
 * property named alone. It turns text into a ConstraintExpression or a ConstraintSyntaxError
 * naming the position and token; it never evaluates anything.
 *
 *   expression := and (("||" | "OR") and)*
 *   and        := unary (("&&" | "AND") unary)*
 *   unary      := ("!" | "NOT") unary | primary
 *   primary    := "(" expression ")" | NAME [compare | "in" membership]
 *   compare    := ("==" | "=" | "!=") scalar ("," scalar)* | ("<" | ">" | "<=" | ">=") scalar
 *   membership := range | "range as a quoted string" | scalar ("," scalar)*
 *   range      := ("[" | "(") VERSION "," (VERSION | INFINITY) ("]" | ")")
 */
import { RESERVED_WORDS } from '../properties/property-name';
import { isVersion, isEmptyInterval, parseVersion } from '../properties/version';
import {
  type ComparisonOperator,
  type ComparisonValue,
  type ConstraintExpression,
  type RangeBound,
  type RangeValue,
  type ScalarValue,
} from './constraint.ast';
import { ConstraintSyntaxError } from './constraint-syntax.error';
import { INFINITY_WORD, readBareWord } from './constraint-words';
import { type Token, tokenize } from './constraint.lexer';

const COMPARISON_SYMBOLS: ReadonlySet<string> = new Set(['==', '=', '!=', '<', '>', '<=', '>=']);
const LIST_OPERATORS: ReadonlySet<ComparisonOperator> = new Set(['==', '!=', 'in']);
/** Deeper nesting is refused as a syntax error rather than left to exhaust the stack. */
export const MAX_NESTING = 100;

export function parseConstraint(text: string): ConstraintExpression {
  return new ConstraintParser(text, 0).parseWhole();
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of input';
    case 'string':
      return `quoted string ${token.raw}`;
    case 'word':
    case 'symbol':
      return `"${token.raw}"`;
  }
}

function fail(expectation: string, token: Token): never {
  throw new ConstraintSyntaxError(
    token.position,
    token.raw,
    `expected ${expectation} at position ${token.position}, found ${describe(token)}`,
  );
}

function after(token: Token | undefined): string {
  return token === undefined ? '' : ` after "${token.raw}"`;
}

class ConstraintParser {
  private readonly tokens: Token[];
  private next = 0;
  private depth = 0;

  constructor(
    private readonly source: string,
    private readonly offset: number,
  ) {
    this.tokens = tokenize(source, offset);
  }

  parseWhole(): ConstraintExpression {
    const expression = this.parseOr(undefined);
    const rest = this.peek();
    if (rest.kind !== 'end') {
      const expectation = '"AND", "OR" or end of input';
      if (rest.raw !== ')') fail(expectation, rest);
      throw new ConstraintSyntaxError(
        rest.position,
        rest.raw,
        `expected ${expectation} at position ${rest.position}, found ")", which closes no "("`,
      );
    }
    return expression;
  }

  private peek(): Token {
    const token = this.tokens[this.next];
    // The lexer always ends with an 'end' token and take() never moves past it.
    if (!token) throw new Error(`constraint parser read past its end token, at token ${this.next}`);
    return token;
  }

  private take(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.next++;
    return token;
  }

  private isSymbol(token: Token, ...symbols: string[]): boolean {
    return token.kind === 'symbol' && symbols.includes(token.text);
  }

  private isWord(token: Token, ...words: string[]): boolean {
    return token.kind === 'word' && words.includes(token.text);
  }

  private parseOr(opener: Token | undefined): ConstraintExpression {
    const first = this.parseAnd(opener);
    const operands = [first];
    while (this.isSymbol(this.peek(), '||') || this.isWord(this.peek(), 'OR')) {
      const operator = this.take();
      operands.push(this.parseAnd(operator));
    }
    return operands.length === 1 ? first : { kind: 'or', operands };
  }

  private parseAnd(opener: Token | undefined): ConstraintExpression {
    const first = this.parseUnary(opener);
    const operands = [first];
    while (this.isSymbol(this.peek(), '&&') || this.isWord(this.peek(), 'AND')) {
      const operator = this.take();
      operands.push(this.parseUnary(operator));
    }
    return operands.length === 1 ? first : { kind: 'and', operands };
  }

  private parseUnary(opener: Token | undefined): ConstraintExpression {
    const token = this.peek();
    if (this.isSymbol(token, '!') || this.isWord(token, 'NOT')) {
      this.enter(token);
      this.take();
      const operand = this.parseUnary(token);
      this.depth--;
      return { kind: 'not', operand };
    }
    return this.parsePrimary(opener);
  }

  private parsePrimary(opener: Token | undefined): ConstraintExpression {
    const token = this.peek();
    if (this.isSymbol(token, '(')) {
      this.enter(token);
      this.take();
      const inner = this.parseOr(token);
      this.depth--;
      const closing = this.peek();
      if (!this.isSymbol(closing, ')')) {
        throw new ConstraintSyntaxError(
          closing.position,
          closing.raw,
          `expected ")" at position ${closing.position} to close the "(" at position ${token.position}, found ${describe(closing)}`,
        );
      }
      this.take();
      return inner;
    }
    if (token.kind !== 'word' || RESERVED_WORDS.includes(token.text)) {
      fail(`an expression${after(opener)}`, token);
    }
    this.take();
    const property = token.text;
    const operatorToken = this.peek();
    if (operatorToken.kind === 'symbol' && COMPARISON_SYMBOLS.has(operatorToken.text)) {
      this.take();
      const operator = (operatorToken.text === '=' ? '==' : operatorToken.text) as ComparisonOperator;
      return {
        kind: 'comparison',
        property,
        operator,
        value: this.parseValues(operatorToken, LIST_OPERATORS.has(operator)),
      };
    }
    if (this.isWord(operatorToken, 'in', 'IN')) {
      this.take();
      return { kind: 'comparison', property, operator: 'in', value: this.parseMembership(operatorToken) };
    }
    return { kind: 'exists', property };
  }

  private enter(token: Token): void {
    if (++this.depth > MAX_NESTING) {
      fail(`at most ${MAX_NESTING} nested parentheses and NOTs`, token);
    }
  }

  private parseMembership(operator: Token): ComparisonValue {
    const token = this.peek();
    if (this.isSymbol(token, '[', '(')) return this.parseRange();
    if (token.kind === 'string' && /^\s*[[(]\s*\d[^]*[\])]\s*$/.test(token.text)) {
      // Open Horizon writes ranges quoted, `version in "[1.0.0,2.0.0)"`: read them as ranges.
      this.take();
      const inner = new ConstraintParser(token.text, token.position + 1);
      const range = inner.parseRange();
      const rest = inner.peek();
      if (rest.kind !== 'end') fail('the end of the quoted range', rest);
      return range;
    }
    return this.parseValues(operator, true);
  }

  private parseValues(operator: Token, listAllowed: boolean): ComparisonValue {
    const first = this.parseScalar(operator);
    if (!this.isSymbol(this.peek(), ',')) return first;
    if (!listAllowed) {
      fail(`a single value after "${operator.raw}" (lists are allowed after ==, =, != and in)`, this.peek());
    }
    const items = [first];
    while (this.isSymbol(this.peek(), ',')) {
      const comma = this.take();
      items.push(this.parseScalar(comma));
    }
    return { kind: 'list', items };
  }

  private parseScalar(previous: Token): ScalarValue {
    const token = this.peek();
    if (token.kind === 'string') {
      this.take();
      return { kind: 'string', value: token.text };
    }
    if (token.kind === 'word' && !RESERVED_WORDS.includes(token.text)) {
      this.take();
      return readBareWord(token.text);
    }
    return fail(`a value after "${previous.raw}"`, token);
  }

  private parseRange(): RangeValue {
    const open = this.take();
    const lowerToken = this.peek();
    if (!this.isVersionToken(lowerToken)) fail('a version as the lower bound of the range', lowerToken);
    this.take();
    const comma = this.peek();
    if (!this.isSymbol(comma, ',')) fail('"," after the lower bound of the range', comma);
    this.take();
    const upperToken = this.peek();
    const unbounded = this.isWord(upperToken, INFINITY_WORD);
    if (!unbounded && !this.isVersionToken(upperToken)) {
      fail(`a version or ${INFINITY_WORD} as the upper bound of the range`, upperToken);
    }
    this.take();
    const close = this.peek();
    if (!this.isSymbol(close, ']', ')')) {
      throw new ConstraintSyntaxError(
        close.position,
        close.raw,
        `expected "]" or ")" at position ${close.position} to close the range at position ${open.position}, found ${describe(close)}`,
      );
    }
    this.take();
    const lower: RangeBound = { version: lowerToken.text, inclusive: open.text === '[' };
    const upper: RangeBound | null = unbounded
      ? null
      : { version: upperToken.text, inclusive: close.text === ']' };
    const range: RangeValue = { kind: 'range', lower, upper };
    if (this.isEmptyRange(range)) {
      const text = this.source.slice(open.position - this.offset, close.position - this.offset + 1);
      throw new ConstraintSyntaxError(
        open.position,
        text,
        `expected a non-empty range at position ${open.position}, found "${text}", which no version lies in`,
      );
    }
    return range;
  }

  private isVersionToken(token: Token): boolean {
    return (token.kind === 'word' || token.kind === 'string') && isVersion(token.text);
  }

  private isEmptyRange(range: RangeValue): boolean {
    const parts = (bound: RangeBound) => ({
      parts: parseVersion(bound.version) ?? [],
      inclusive: bound.inclusive,
    });
    return isEmptyInterval({
      lower: parts(range.lower),
      upper: range.upper === null ? null : parts(range.upper),
    });
  }
}
