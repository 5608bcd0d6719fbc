/**
 * Turns a ConstraintExpression into a function of a property index, reading every literal
 * once. This is the one meaning of a constraint: `evaluate` runs the same compiled function.
 *
 * Open Horizon's rule holds: a comparison on a missing property is false, whatever the
 * operator, so `x != 1` is false when x is missing. NOT, which Open Horizon lacks, is plain
 * negation on top of that: `NOT (x == 1)` is TRUE when x is missing. Write `x AND x != 1` to
 * require the property as well.
 */
import { asPropertyIndex } from '../properties/property-index';
import { type Property, type PropertyIndex } from '../properties/property.types';
import { type ConstraintExpression } from '../constraints/constraint.ast';
import { prepareOperand } from './prepared-operand';
import { compareProperty } from './property-comparison';

export type CompiledExpression = (properties: PropertyIndex) => boolean;

export function compileExpression(expression: ConstraintExpression): CompiledExpression {
  switch (expression.kind) {
    case 'or': {
      const operands = expression.operands.map(compileExpression);
      return (properties) => operands.some((operand) => operand(properties));
    }
    case 'and': {
      const operands = expression.operands.map(compileExpression);
      return (properties) => operands.every((operand) => operand(properties));
    }
    case 'not': {
      const operand = compileExpression(expression.operand);
      return (properties) => !operand(properties);
    }
    case 'exists': {
      const name = expression.property;
      return (properties) => {
        const property = properties.get(name);
        return property !== undefined && (property.type !== 'boolean' || property.value);
      };
    }
    case 'comparison': {
      const { property: name, operator } = expression;
      const operand = prepareOperand(expression.value);
      return (properties) => {
        const property = properties.get(name);
        return property !== undefined && compareProperty(property, operator, operand);
      };
    }
  }
}

/** Whether the properties satisfy the expression. Index the properties once when checking many. */
export function evaluate(
  expression: ConstraintExpression,
  properties: readonly Property[] | PropertyIndex,
): boolean {
  return compileExpression(expression)(asPropertyIndex(properties));
}
