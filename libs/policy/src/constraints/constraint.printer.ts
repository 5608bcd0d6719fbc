/**
 * Prints a ConstraintExpression back to constraint text that parses to the same tree: the
 * canonical spelling (AND, OR, NOT, ==), parentheses only where the tree needs them, values
 * bare when they would read back unchanged and double-quoted otherwise.
 */
import { isPropertyName } from '../properties/property-name';
import { type ComparisonValue, type ConstraintExpression, type ScalarValue } from './constraint.ast';
import { INFINITY_WORD, readBareWord } from './constraint-words';

export function printConstraint(expression: ConstraintExpression): string {
  switch (expression.kind) {
    case 'or':
      return expression.operands
        .map((operand) =>
          operand.kind === 'or' ? `(${printConstraint(operand)})` : printConstraint(operand),
        )
        .join(' OR ');
    case 'and':
      return expression.operands
        .map((operand) =>
          operand.kind === 'or' || operand.kind === 'and'
            ? `(${printConstraint(operand)})`
            : printConstraint(operand),
        )
        .join(' AND ');
    case 'not':
      return expression.operand.kind === 'exists'
        ? `NOT ${expression.operand.property}`
        : `NOT (${printConstraint(expression.operand)})`;
    case 'comparison':
      return `${expression.property} ${expression.operator} ${printValue(expression.value)}`;
    case 'exists':
      return expression.property;
  }
}

function printValue(value: ComparisonValue): string {
  switch (value.kind) {
    case 'list':
      return value.items.map(printScalar).join(', ');
    case 'range':
      return `${value.lower.inclusive ? '[' : '('}${value.lower.version},${
        value.upper === null
          ? `${INFINITY_WORD})`
          : `${value.upper.version}${value.upper.inclusive ? ']' : ')'}`
      }`;
    case 'string':
    case 'number':
    case 'boolean':
      return printScalar(value);
  }
}

function printScalar(value: ScalarValue): string {
  switch (value.kind) {
    case 'number':
      return value.text;
    case 'boolean':
      return String(value.value);
    case 'string':
      return readsBackAsString(value.value)
        ? value.value
        : `"${value.value.replace(/["\\]/g, (char) => `\\${char}`)}"`;
  }
}

function readsBackAsString(text: string): boolean {
  // A bare word reads back as this string unless it is a keyword, a number or a boolean.
  return isPropertyName(text) && readBareWord(text).kind === 'string';
}
