import {
  type ComparisonOperator,
  type ComparisonValue,
  type ConstraintExpression,
  type ScalarValue,
} from './constraint.ast';
import { ConstraintSyntaxError } from './constraint-syntax.error';
import { MAX_NESTING, parseConstraint } from './constraint.parser';

const str = (value: string): ScalarValue => ({ kind: 'string', value });
const num = (text: string): ScalarValue => ({ kind: 'number', text, value: Number(text) });
const bool = (value: boolean): ScalarValue => ({ kind: 'boolean', value });
const list = (...items: ScalarValue[]): ComparisonValue => ({ kind: 'list', items });
const range = (
  lower: string,
  lowerInclusive: boolean,
  upper: string | null,
  upperInclusive = false,
): ComparisonValue => ({
  kind: 'range',
  lower: { version: lower, inclusive: lowerInclusive },
  upper: upper === null ? null : { version: upper, inclusive: upperInclusive },
});
const cmp = (
  property: string,
  operator: ComparisonOperator,
  value: ComparisonValue,
): ConstraintExpression => ({
  kind: 'comparison',
  property,
  operator,
  value,
});
const exists = (property: string): ConstraintExpression => ({ kind: 'exists', property });
const not = (operand: ConstraintExpression): ConstraintExpression => ({ kind: 'not', operand });
const and = (...operands: ConstraintExpression[]): ConstraintExpression => ({ kind: 'and', operands });
const or = (...operands: ConstraintExpression[]): ConstraintExpression => ({ kind: 'or', operands });

function syntaxError(text: string): ConstraintSyntaxError {
  try {
    parseConstraint(text);
  } catch (error) {
    if (error instanceof ConstraintSyntaxError) return error;
    throw error;
  }
  throw new Error(`"${text}" parsed without error`);
}

describe('parseConstraint', () => {
  const a1 = cmp('a', '==', num('1'));
  const b2 = cmp('b', '==', num('2'));
  const c3 = cmp('c', '==', num('3'));

  it.each<[string, ConstraintExpression]>([
    // every comparison operator; `=` reads as `==`
    ['purpose == network-testing', cmp('purpose', '==', str('network-testing'))],
    ['purpose = network-testing', cmp('purpose', '==', str('network-testing'))],
    ['careen.os != linux', cmp('careen.os', '!=', str('linux'))],
    ['careen.cpus < 4', cmp('careen.cpus', '<', num('4'))],
    ['careen.cpus > 4', cmp('careen.cpus', '>', num('4'))],
    ['careen.memory <= 2048', cmp('careen.memory', '<=', num('2048'))],
    ['careen.memory >= 2048', cmp('careen.memory', '>=', num('2048'))],
    ['temperature >= -12.5', cmp('temperature', '>=', num('-12.5'))],
    ['a==1', a1],
    ['a<=-1', cmp('a', '<=', num('-1'))],
    // value kinds: bare and quoted strings, numbers, booleans
    ['gpu == true', cmp('gpu', '==', bool(true))],
    ['gpu == FALSE', cmp('gpu', '==', bool(false))],
    ['gpu == "true"', cmp('gpu', '==', str('true'))],
    ["zone == 'eu west'", cmp('zone', '==', str('eu west'))],
    ['zone == "eu \\"west\\""', cmp('zone', '==', str('eu "west"'))],
    ["zone == 'it\\'s'", cmp('zone', '==', str("it's"))],
    ['zone == "5"', cmp('zone', '==', str('5'))],
    ['careen.agentVersion == 1.2.3', cmp('careen.agentVersion', '==', str('1.2.3'))],
    ['careen.agentVersion == 1.10', cmp('careen.agentVersion', '==', num('1.10'))],
    ['path == /opt/app-1_x', cmp('path', '==', str('/opt/app-1_x'))],
    ['city == Zürich', cmp('city', '==', str('Zürich'))],
    // property names with every allowed character
    ['my.org/feature_flag-2 == on', cmp('my.org/feature_flag-2', '==', str('on'))],
    ['5g == yes', cmp('5g', '==', str('yes'))],
    // lists, Open Horizon's `prop == a,b,c` included
    ['careen.arch == amd64,arm64', cmp('careen.arch', '==', list(str('amd64'), str('arm64')))],
    [
      'careen.arch in "amd64", \'arm64\', riscv',
      cmp('careen.arch', 'in', list(str('amd64'), str('arm64'), str('riscv'))),
    ],
    ['tier != gold , silver', cmp('tier', '!=', list(str('gold'), str('silver')))],
    ['size in 1, 2.5, big', cmp('size', 'in', list(num('1'), num('2.5'), str('big')))],
    ['color in "red,blue"', cmp('color', 'in', str('red,blue'))],
    ['careen.arch IN amd64', cmp('careen.arch', 'in', str('amd64'))],
    // version ranges: closed and open ends, INFINITY with either bracket, quoted ranges
    ['v in [1.0.0,2.0.0)', cmp('v', 'in', range('1.0.0', true, '2.0.0', false))],
    ['v in [1.0.0,2.0.0]', cmp('v', 'in', range('1.0.0', true, '2.0.0', true))],
    ['v in (1.0.0,2.0.0)', cmp('v', 'in', range('1.0.0', false, '2.0.0', false))],
    ['v in (1.0,2]', cmp('v', 'in', range('1.0', false, '2', true))],
    ['v in (1.0,INFINITY]', cmp('v', 'in', range('1.0', false, null))],
    ['v in [1,INFINITY)', cmp('v', 'in', range('1', true, null))],
    ['v in [ 1.0 , 1.0 ]', cmp('v', 'in', range('1.0', true, '1.0', true))],
    ['v in "[1.0.0,2.0.0)"', cmp('v', 'in', range('1.0.0', true, '2.0.0', false))],
    ['v in "1.0.0"', cmp('v', 'in', str('1.0.0'))],
    ['v in 1.0.0', cmp('v', 'in', str('1.0.0'))],
    ['stage in "(beta)"', cmp('stage', 'in', str('(beta)'))],
    // existence, NOT and !
    ['gpu', exists('gpu')],
    ['NOT gpu', not(exists('gpu'))],
    ['!gpu', not(exists('gpu'))],
    ['NOT NOT gpu', not(not(exists('gpu')))],
    ['NOT (a == 1)', not(a1)],
    ['NOT a == 1', not(a1)],
    ['! a != 1', not(cmp('a', '!=', num('1')))],
    // AND binds tighter than OR, NOT tighter than AND
    ['a == 1 AND b == 2', and(a1, b2)],
    ['a == 1 && b == 2 && c == 3', and(a1, b2, c3)],
    ['a == 1 OR b == 2 || c == 3', or(a1, b2, c3)],
    ['a == 1 OR b == 2 AND c == 3', or(a1, and(b2, c3))],
    ['a == 1 AND b == 2 OR c == 3', or(and(a1, b2), c3)],
    ['NOT a == 1 AND b == 2', and(not(a1), b2)],
    ['NOT a == 1 OR gpu', or(not(a1), exists('gpu'))],
    ['gpu AND a == 1', and(exists('gpu'), a1)],
    // parentheses
    ['(a == 1 OR b == 2) AND c == 3', and(or(a1, b2), c3)],
    ['((a == 1))', a1],
    ['(a == 1 AND b == 2) AND c == 3', and(and(a1, b2), c3)],
    ['NOT (a == 1 OR b == 2)', not(or(a1, b2))],
    ['!(a==1||(b==2&&c==3))', not(or(a1, and(b2, c3)))],
    ['  a == 1\n\tAND b == 2  ', and(a1, b2)],
    // words that are keywords elsewhere are plain names and values here
    ['in == INFINITY', cmp('in', '==', str('INFINITY'))],
    ['true', exists('true')],
  ])('parses %j', (text, expected) => {
    expect(parseConstraint(text)).toEqual(expected);
  });

  it.each<[string, number, string, string]>([
    // dangling operators
    ['careen.os ==', 12, '', 'expected a value after "==" at position 12, found end of input'],
    ['a == 1 AND', 10, '', 'expected an expression after "AND" at position 10, found end of input'],
    ['a == 1 ||', 9, '', 'expected an expression after "||" at position 9, found end of input'],
    ['AND a == 1', 0, 'AND', 'expected an expression at position 0, found "AND"'],
    ['a == 1 AND OR b', 11, 'OR', 'expected an expression after "AND" at position 11, found "OR"'],
    ['NOT', 3, '', 'expected an expression after "NOT" at position 3, found end of input'],
    ['a == AND', 5, 'AND', 'expected a value after "==" at position 5, found "AND"'],
    ['a == 1,', 7, '', 'expected a value after "," at position 7, found end of input'],
    ['a in', 4, '', 'expected a value after "in" at position 4, found end of input'],
    ['a == == 1', 5, '==', 'expected a value after "==" at position 5, found "=="'],
    ['', 0, '', 'expected an expression at position 0, found end of input'],
    ['   ', 3, '', 'expected an expression at position 3, found end of input'],
    ['"a" == 1', 0, '"a"', 'expected an expression at position 0, found quoted string "a"'],
    // missing operators between expressions
    ['a == 1 and b == 2', 7, 'and', 'expected "AND", "OR" or end of input at position 7, found "and"'],
    ['a == 1 b == 2', 7, 'b', 'expected "AND", "OR" or end of input at position 7, found "b"'],
    [
      'a < 1, 2',
      5,
      ',',
      'expected a single value after "<" (lists are allowed after ==, =, != and in) at position 5, found ","',
    ],
    ['a == [1,2)', 5, '[', 'expected a value after "==" at position 5, found "["'],
    // unbalanced parentheses
    ['(a == 1', 7, '', 'expected ")" at position 7 to close the "(" at position 0, found end of input'],
    [
      '((a == 1) AND b',
      15,
      '',
      'expected ")" at position 15 to close the "(" at position 0, found end of input',
    ],
    ['a == 1)', 6, ')', 'expected "AND", "OR" or end of input at position 6, found ")", which closes no "("'],
    ['()', 1, ')', 'expected an expression after "(" at position 1, found ")"'],
    // unterminated quotes
    [
      'zone == "eu west',
      8,
      '"eu west',
      'expected a closing " for the string at position 8, found end of input',
    ],
    ["zone == 'eu", 8, "'eu", "expected a closing ' for the string at position 8, found end of input"],
    ['zone == "eu\\"', 8, '"eu\\"', 'expected a closing " for the string at position 8, found end of input'],
    // empty ranges
    [
      'v in [2.0.0,1.0.0)',
      5,
      '[2.0.0,1.0.0)',
      'expected a non-empty range at position 5, found "[2.0.0,1.0.0)", which no version lies in',
    ],
    [
      'v in [1.0,1.0.0)',
      5,
      '[1.0,1.0.0)',
      'expected a non-empty range at position 5, found "[1.0,1.0.0)", which no version lies in',
    ],
    [
      'v in (1.0,1.0]',
      5,
      '(1.0,1.0]',
      'expected a non-empty range at position 5, found "(1.0,1.0]", which no version lies in',
    ],
    [
      'v in "(2,1]"',
      6,
      '(2,1]',
      'expected a non-empty range at position 6, found "(2,1]", which no version lies in',
    ],
    // malformed ranges
    [
      'v in [1.0.0 2.0.0)',
      12,
      '2.0.0',
      'expected "," after the lower bound of the range at position 12, found "2.0.0"',
    ],
    [
      'v in [abc,2.0)',
      6,
      'abc',
      'expected a version as the lower bound of the range at position 6, found "abc"',
    ],
    ['v in [,2.0)', 6, ',', 'expected a version as the lower bound of the range at position 6, found ","'],
    [
      'v in [INFINITY,2.0)',
      6,
      'INFINITY',
      'expected a version as the lower bound of the range at position 6, found "INFINITY"',
    ],
    [
      'v in [1.0,beta)',
      10,
      'beta',
      'expected a version or INFINITY as the upper bound of the range at position 10, found "beta"',
    ],
    [
      'v in [1.0,)',
      10,
      ')',
      'expected a version or INFINITY as the upper bound of the range at position 10, found ")"',
    ],
    [
      'v in [1.0,2.0',
      13,
      '',
      'expected "]" or ")" at position 13 to close the range at position 5, found end of input',
    ],
    [
      'v in [1.0,2.0,3.0]',
      13,
      ',',
      'expected "]" or ")" at position 13 to close the range at position 5, found ","',
    ],
    [
      'v in [1.-0,2)',
      6,
      '1.-0',
      'expected a version as the lower bound of the range at position 6, found "1.-0"',
    ],
    ['v in "[1.0,2.0) 3)"', 16, '3', 'expected the end of the quoted range at position 16, found "3"'],
    // unknown characters
    ['a == 1 $ b', 7, '$', 'unknown character at position 7, found "$"'],
    ['a ~= 1', 2, '~', 'unknown character at position 2, found "~"'],
    ['a == 1 & b == 2', 7, '&', 'expected "&&" at position 7, found "&"'],
    ['a == 1 | b == 2', 7, '|', 'expected "||" at position 7, found "|"'],
    ['a == x:y', 6, ':', 'unknown character at position 6, found ":"'],
    ['a == 1 😀', 7, '😀', 'unknown character at position 7, found "😀"'],
  ])('rejects %j at position %i on token %j', (text, position, token, message) => {
    const error = syntaxError(text);
    expect(error).toBeInstanceOf(ConstraintSyntaxError);
    expect({ position: error.position, token: error.token, message: error.message }).toEqual({
      position,
      token,
      message,
    });
  });

  it('refuses nesting deeper than the limit as a syntax error, not a stack overflow', () => {
    const deep = (levels: number) => `${'('.repeat(levels)}a == 1${')'.repeat(levels)}`;
    expect(parseConstraint(deep(MAX_NESTING))).toEqual(a1);
    expect(syntaxError(deep(100_000))).toMatchObject({
      position: MAX_NESTING,
      token: '(',
      message: `expected at most ${MAX_NESTING} nested parentheses and NOTs at position ${MAX_NESTING}, found "("`,
    });
    expect(syntaxError(`${'NOT '.repeat(MAX_NESTING + 1)}gpu`)).toMatchObject({
      position: MAX_NESTING * 4,
      token: 'NOT',
    });
  });
});
