/**
 * Laws of the constraint language checked on random expressions and property sets drawn from
 * a seeded generator, so a failure reproduces on every run.
 */
import { compileConstraints } from './compatibility/compiled-constraints';
import {
  type ComparisonOperator,
  type ComparisonValue,
  type ConstraintExpression,
  type ScalarValue,
  referencedProperties,
} from './constraints/constraint.ast';
import { parseConstraint } from './constraints/constraint.parser';
import { printConstraint } from './constraints/constraint.printer';
import { evaluate } from './evaluation/expression.compiler';
import { indexProperties } from './properties/property-index';
import { type Property } from './properties/property.types';

/** mulberry32: a small seeded generator. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  'a',
  'zone',
  'careen.cpus',
  'v',
  'tags',
  'gpu',
  'x-1',
  'org/p_q',
  'in',
  'true',
  '5g',
  'Zürich',
];
const STRINGS = [
  'a',
  'eu-west',
  'hello world',
  'say "hi"',
  "it's",
  'AND',
  'NOT',
  'true',
  '1.2.3',
  '',
  '1',
  'x,a',
  'back\\slash',
  'INFINITY',
  'in',
];
const NUMBERS = ['0', '4', '-2', '1.5', '1.10', '007', '2'];
const VERSIONS = ['0.9.1', '1', '1.2', '1.2.3', '1.10', '2', '2.0.1', '10.0'];
const OPERATORS: ComparisonOperator[] = ['==', '!=', '<', '>', '<=', '>=', 'in'];

class Generator {
  constructor(private readonly random: () => number) {}

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.random() * items.length)];
    if (item === undefined) throw new Error('there is nothing to pick from');
    return item;
  }

  chance(probability: number): boolean {
    return this.random() < probability;
  }

  scalar(): ScalarValue {
    const roll = this.random();
    if (roll < 0.5) return { kind: 'string', value: this.pick(STRINGS) };
    if (roll < 0.75) {
      const text = this.pick(NUMBERS);
      return { kind: 'number', text, value: Number(text) };
    }
    if (roll < 0.9) return { kind: 'string', value: this.pick(VERSIONS) };
    return { kind: 'boolean', value: this.chance(0.5) };
  }

  value(operator: ComparisonOperator): ComparisonValue {
    const listAllowed = operator === '==' || operator === '!=' || operator === 'in';
    if (operator === 'in' && this.chance(0.4)) {
      const [x, y] = [this.pick(VERSIONS), this.pick(VERSIONS)];
      const [low, high] = VERSIONS.indexOf(x) <= VERSIONS.indexOf(y) ? [x, y] : [y, x];
      const unbounded = this.chance(0.3);
      const lowerInclusive = low === high || this.chance(0.5);
      return {
        kind: 'range',
        lower: { version: low, inclusive: lowerInclusive },
        upper: unbounded ? null : { version: high, inclusive: low === high || this.chance(0.5) },
      };
    }
    if (listAllowed && this.chance(0.3)) {
      return {
        kind: 'list',
        items: Array.from({ length: 2 + Math.floor(this.random() * 2) }, () => this.scalar()),
      };
    }
    return this.scalar();
  }

  expression(depth: number): ConstraintExpression {
    if (depth <= 0 || this.chance(0.35)) {
      const property = this.pick(NAMES);
      if (this.chance(0.15)) return { kind: 'exists', property };
      const operator = this.pick(OPERATORS);
      return { kind: 'comparison', property, operator, value: this.value(operator) };
    }
    const roll = this.random();
    if (roll < 0.2) return { kind: 'not', operand: this.expression(depth - 1) };
    const operands = Array.from({ length: 2 + Math.floor(this.random() * 2) }, () =>
      this.expression(depth - 1),
    );
    return { kind: roll < 0.6 ? 'and' : 'or', operands };
  }

  property(name: string): Property {
    switch (this.pick(['string', 'int', 'float', 'boolean', 'version', 'list of strings'] as const)) {
      case 'string':
        return { name, value: this.pick([...STRINGS, ...VERSIONS]) };
      case 'int':
        return { name, type: 'int', value: this.pick([0, 4, -2, 7, 2, 10]) };
      case 'float':
        return { name, type: 'float', value: this.pick([1.5, 0.25, 1.1, -2]) };
      case 'boolean':
        return { name, value: this.chance(0.5) };
      case 'version':
        return { name, type: 'version', value: this.pick(VERSIONS) };
      case 'list of strings':
        return {
          name,
          type: 'list of strings',
          value: STRINGS.filter((s) => s !== '' && !s.includes(',') && this.chance(0.3)),
        };
    }
  }

  /** A property for every name, or for most of them when `allPresent` is false. */
  properties(allPresent: boolean): Property[] {
    return NAMES.filter(() => allPresent || this.chance(0.7)).map((name) => this.property(name));
  }
}

describe('constraint language laws', () => {
  const generate = new Generator(seededRandom(0xca2ee7));
  const expressions = Array.from({ length: 400 }, () => generate.expression(4));

  it('prints every expression to text that parses back to the same tree', () => {
    for (const expression of expressions) {
      const text = printConstraint(expression);
      expect({ text, tree: parseConstraint(text) }).toEqual({ text, tree: expression });
      expect(printConstraint(parseConstraint(text))).toBe(text);
    }
  });

  it('evaluates a printed and re-parsed expression the same as the original', () => {
    for (const expression of expressions.slice(0, 100)) {
      const properties = generate.properties(false);
      expect(evaluate(parseConstraint(printConstraint(expression)), properties)).toBe(
        evaluate(expression, properties),
      );
    }
  });

  it('NOT (e) is the negation of e when every property e names is present', () => {
    const outcomes = { true: 0, false: 0 };
    for (const expression of expressions) {
      const properties = generate.properties(true);
      expect(referencedProperties(expression).every((name) => properties.some((p) => p.name === name))).toBe(
        true,
      );
      const holds = evaluate(expression, properties);
      outcomes[`${holds}`]++;
      expect(evaluate({ kind: 'not', operand: expression }, properties)).toBe(!holds);
    }
    // The law is only worth checking when random expressions come out both ways.
    expect(outcomes.true).toBeGreaterThan(40);
    expect(outcomes.false).toBeGreaterThan(40);
  });

  it('x != v is NOT (x == v) for a present string or list property, and both differ when x is missing', () => {
    for (let n = 0; n < 300; n++) {
      const value = generate.value('==');
      const properties: Property[] = generate.chance(0.5)
        ? [{ name: 'zone', value: generate.pick(STRINGS) }]
        : [{ name: 'zone', type: 'list of strings', value: ['a', 'eu-west', 'true'] }];
      const equal: ConstraintExpression = { kind: 'comparison', property: 'zone', operator: '==', value };
      const unequal: ConstraintExpression = { kind: 'comparison', property: 'zone', operator: '!=', value };
      expect(evaluate(unequal, properties)).toBe(evaluate({ kind: 'not', operand: equal }, properties));
      expect(evaluate(unequal, [])).toBe(false);
      expect(evaluate({ kind: 'not', operand: equal }, [])).toBe(true);
    }
  });

  it('AND and OR are commutative and associative, and De Morgan holds', () => {
    for (let n = 0; n < 300; n++) {
      const [a, b, c] = [generate.expression(2), generate.expression(2), generate.expression(2)];
      const index = indexProperties(generate.properties(false));
      const holds = (expression: ConstraintExpression) => evaluate(expression, index);
      const and = (...operands: ConstraintExpression[]): ConstraintExpression => ({ kind: 'and', operands });
      const or = (...operands: ConstraintExpression[]): ConstraintExpression => ({ kind: 'or', operands });
      const not = (operand: ConstraintExpression): ConstraintExpression => ({ kind: 'not', operand });

      expect(holds(and(a, b))).toBe(holds(and(b, a)));
      expect(holds(or(a, b))).toBe(holds(or(b, a)));
      expect(holds(and(and(a, b), c))).toBe(holds(and(a, and(b, c))));
      expect(holds(or(or(a, b), c))).toBe(holds(or(a, or(b, c))));
      expect(holds(and(a, b, c))).toBe(holds(a) && holds(b) && holds(c));
      expect(holds(or(a, b, c))).toBe(holds(a) || holds(b) || holds(c));
      expect(holds(not(and(a, b)))).toBe(holds(or(not(a), not(b))));
      expect(holds(not(or(a, b)))).toBe(holds(and(not(a), not(b))));
    }
  });

  it('a list of constraint strings holds exactly when each holds, compiled or not', () => {
    for (let n = 0; n < 200; n++) {
      const group = [generate.expression(3), generate.expression(3), generate.expression(3)];
      const properties = generate.properties(false);
      const compiled = compileConstraints(group.map(printConstraint));
      const expected = group.every((expression) => evaluate(expression, properties));
      expect(compiled.test(properties)).toBe(expected);
      expect(compiled.test(indexProperties(properties))).toBe(expected);
      expect(compiled.failures(properties).map((failure) => failure.index)).toEqual(
        group.flatMap((expression, index) => (evaluate(expression, properties) ? [] : [index])),
      );
    }
  });
});
