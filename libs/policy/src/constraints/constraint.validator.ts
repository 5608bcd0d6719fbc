/**
 * Validation of a constraint list as a client sends it: each entry must be a string that
 * parses. Every problem is reported with the index of its string, the position and token.
 */
import { type ConstraintExpression } from './constraint.ast';
import { ConstraintSyntaxError } from './constraint-syntax.error';
import { parseConstraint } from './constraint.parser';

export interface ConstraintProblem {
  readonly index: number;
  readonly constraint: string;
  readonly message: string;
  /** 0-based offset in the constraint string; absent when the entry is not a string. */
  readonly position?: number;
  readonly token?: string;
}

export type ParsedConstraint =
  | {
      readonly ok: true;
      readonly index: number;
      readonly constraint: string;
      readonly expression: ConstraintExpression;
    }
  | {
      readonly ok: false;
      readonly index: number;
      readonly constraint: string;
      readonly problem: ConstraintProblem;
    };

/** Parses one entry of a constraint list without throwing. */
export function parseConstraintEntry(constraint: unknown, index: number): ParsedConstraint {
  if (typeof constraint !== 'string') {
    const text = String(constraint);
    return {
      ok: false,
      index,
      constraint: text,
      problem: {
        index,
        constraint: text,
        message: `constraint ${index} is not a string but ${constraint === null ? 'null' : typeof constraint}`,
      },
    };
  }
  try {
    return { ok: true, index, constraint, expression: parseConstraint(constraint) };
  } catch (error) {
    if (!(error instanceof ConstraintSyntaxError)) throw error;
    return {
      ok: false,
      index,
      constraint,
      problem: { index, constraint, message: error.message, position: error.position, token: error.token },
    };
  }
}

export function validateConstraints(constraints: readonly unknown[]): ConstraintProblem[] {
  return constraints.flatMap((constraint, index) => {
    const parsed = parseConstraintEntry(constraint, index);
    return parsed.ok ? [] : [parsed.problem];
  });
}
