/**
 * A constraint list (its strings ANDed, as Open Horizon does) parsed and compiled once, then
 * tested against many property sets. An invalid string never throws here: it is listed in
 * `problems` and the list is never satisfied, so one bad policy cannot stop matching others.
 */
import { asPropertyIndex } from '../properties/property-index';
import { type Property, type PropertyIndex } from '../properties/property.types';
import { referencedProperties } from '../constraints/constraint.ast';
import { type ConstraintProblem, parseConstraintEntry } from '../constraints/constraint.validator';
import { type CompiledExpression, compileExpression } from '../evaluation/expression.compiler';

export interface ConstraintFailure {
  readonly index: number;
  readonly constraint: string;
  /** `invalid`: the string does not parse; `unsatisfied`: it parses and is false. */
  readonly reason: 'invalid' | 'unsatisfied';
  /** Properties the constraint names that the property set lacks. */
  readonly missingProperties: readonly string[];
  /** For an invalid constraint, what the parser found wrong. */
  readonly problem?: ConstraintProblem;
  readonly message: string;
}

export interface CompiledConstraints {
  readonly constraints: readonly string[];
  readonly problems: readonly ConstraintProblem[];
  /** True when every constraint holds; an empty list always holds. */
  test(properties: readonly Property[] | PropertyIndex): boolean;
  /** Every constraint that does not hold, with why. Empty exactly when `test` is true. */
  failures(properties: readonly Property[] | PropertyIndex): ConstraintFailure[];
}

interface CompiledEntry {
  readonly index: number;
  readonly constraint: string;
  readonly test: CompiledExpression;
  readonly properties: readonly string[];
}

export function compileConstraints(constraints: readonly string[]): CompiledConstraints {
  const entries: CompiledEntry[] = [];
  const problems: ConstraintProblem[] = [];
  constraints.forEach((constraint, index) => {
    const parsed = parseConstraintEntry(constraint, index);
    if (parsed.ok) {
      entries.push({
        index,
        constraint,
        test: compileExpression(parsed.expression),
        properties: referencedProperties(parsed.expression),
      });
    } else {
      problems.push(parsed.problem);
    }
  });
  const tests = entries.map((entry) => entry.test);
  const valid = problems.length === 0;

  return {
    constraints: [...constraints],
    problems,
    test(properties) {
      if (!valid) return false;
      const index = asPropertyIndex(properties);
      for (const test of tests) if (!test(index)) return false;
      return true;
    },
    failures(properties) {
      const index = asPropertyIndex(properties);
      const invalid = problems.map((problem): ConstraintFailure => ({
        index: problem.index,
        constraint: problem.constraint,
        reason: 'invalid',
        missingProperties: [],
        problem,
        message: `constraint ${problem.index} is invalid: ${problem.message}`,
      }));
      const unsatisfied = entries
        .filter((entry) => !entry.test(index))
        .map((entry): ConstraintFailure => {
          const missingProperties = entry.properties.filter((name) => !index.has(name));
          return {
            index: entry.index,
            constraint: entry.constraint,
            reason: 'unsatisfied',
            missingProperties,
            message: `constraint ${entry.index} "${entry.constraint}" is not satisfied${
              missingProperties.length > 0 ? ` (missing ${missingProperties.join(', ')})` : ''
            }`,
          };
        });
      return [...invalid, ...unsatisfied].sort((a, b) => a.index - b.index);
    },
  };
}

/** Whether the properties satisfy every constraint. Compile once when checking many property sets. */
export function satisfies(
  constraints: readonly string[],
  properties: readonly Property[] | PropertyIndex,
): boolean {
  return compileConstraints(constraints).test(properties);
}

/** The constraints the properties do not satisfy, or that do not parse. */
export function unsatisfiedConstraints(
  constraints: readonly string[],
  properties: readonly Property[] | PropertyIndex,
): ConstraintFailure[] {
  return compileConstraints(constraints).failures(properties);
}
