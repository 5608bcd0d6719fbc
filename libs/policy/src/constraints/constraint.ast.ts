/**
 * The syntax tree of one constraint expression. Pure data, free of source positions, so two
 * parses of equivalent text compare equal; `=` is read as `==` and a quoted range as a range.
 */

export type ComparisonOperator = '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in';

export type ScalarValue =
  | { readonly kind: 'string'; readonly value: string }
  /** `text` is kept as written: compared to a version property, `1.10` is not `1.1`. */
  | { readonly kind: 'number'; readonly text: string; readonly value: number }
  | { readonly kind: 'boolean'; readonly value: boolean };

/** `a, b, c` after `==`, `!=` or `in`: a match with any item. Always two or more items. */
export interface ListValue {
  readonly kind: 'list';
  readonly items: readonly ScalarValue[];
}

export interface RangeBound {
  readonly version: string;
  readonly inclusive: boolean;
}

/** `[1.0.0,2.0.0)` or `(1.0,INFINITY]` after `in`; `upper: null` is INFINITY. */
export interface RangeValue {
  readonly kind: 'range';
  readonly lower: RangeBound;
  readonly upper: RangeBound | null;
}

export type ComparisonValue = ScalarValue | ListValue | RangeValue;

export interface ComparisonExpression {
  readonly kind: 'comparison';
  readonly property: string;
  readonly operator: ComparisonOperator;
  readonly value: ComparisonValue;
}

/** A property named alone: a boolean must be true, any other type must merely exist. */
export interface ExistsExpression {
  readonly kind: 'exists';
  readonly property: string;
}

export interface NotExpression {
  readonly kind: 'not';
  readonly operand: ConstraintExpression;
}

/** Two or more operands; a chain `a AND b AND c` is one node, `(a AND b) AND c` is two. */
export interface AndExpression {
  readonly kind: 'and';
  readonly operands: readonly ConstraintExpression[];
}

export interface OrExpression {
  readonly kind: 'or';
  readonly operands: readonly ConstraintExpression[];
}

export type ConstraintExpression =
  OrExpression | AndExpression | NotExpression | ComparisonExpression | ExistsExpression;

/** Every property name the expression refers to, in order of first appearance. */
export function referencedProperties(expression: ConstraintExpression): string[] {
  const names = new Set<string>();
  const visit = (node: ConstraintExpression): void => {
    switch (node.kind) {
      case 'or':
      case 'and':
        node.operands.forEach(visit);
        return;
      case 'not':
        visit(node.operand);
        return;
      case 'comparison':
      case 'exists':
        names.add(node.property);
        return;
    }
  };
  visit(expression);
  return [...names];
}
