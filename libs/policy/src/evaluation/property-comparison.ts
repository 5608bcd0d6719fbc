/**
 * What a comparison means for a property that is present, by the property's type. The literal
 * is read in the property's type; a literal that cannot be read so makes the comparison false
 * whatever the operator (`cpus != abc` is false, like Open Horizon), so a typo never matches
 * every node. A missing property is handled by the caller (always false).
 *
 *   string           == != (and `in` a list: membership); ordering is false
 *   int, float       all operators, numerically; `in` a list or a numeric range
 *   boolean          == != against true/false; ordering is false
 *   version          all operators in version order; `in` a range, a list, or one version
 *                    (`in 1.2` means at least 1.2, as Open Horizon reads a lone version as a range)
 *   list of strings  == and `in`: some value in common; != : none in common; ordering is false
 */
import { compareVersionParts, parseVersion, versionInInterval } from '../properties/version';
import { type TypedProperty, type VersionParts } from '../properties/property.types';
import { type ComparisonOperator } from '../constraints/constraint.ast';
import { type PreparedOperand } from './prepared-operand';

function ordered(order: number, operator: ComparisonOperator): boolean {
  switch (operator) {
    case '<':
      return order < 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '>=':
      return order >= 0;
    case '==':
    case 'in':
      return order === 0;
    case '!=':
      return order !== 0;
  }
}

/** ==, != and `in` against a set of candidates of the property's type. */
function matchAny(found: boolean, readable: boolean, operator: ComparisonOperator): boolean {
  if (!readable) return false;
  return operator === '!=' ? !found : found;
}

function compareString(value: string, operator: ComparisonOperator, operand: PreparedOperand): boolean {
  switch (operator) {
    case '==':
    case '!=':
      return matchAny(operand.strings.has(value), true, operator);
    case 'in': {
      if (operand.interval === undefined) return operand.strings.has(value);
      // Open Horizon checks a version-looking string against a range as a version.
      const parts = parseVersion(value);
      return parts !== undefined && versionInInterval(parts, operand.interval);
    }
    case '<':
    case '>':
    case '<=':
    case '>=':
      return false;
  }
}

function compareNumber(value: number, operator: ComparisonOperator, operand: PreparedOperand): boolean {
  switch (operator) {
    case '==':
    case '!=':
      return matchAny(operand.numbers.includes(value), operand.numbers.length > 0, operator);
    case 'in': {
      if (operand.interval === undefined) return operand.numbers.includes(value);
      const range = operand.numberInterval;
      if (range === undefined) return false;
      const aboveLower = range.lower.inclusive ? value >= range.lower.value : value > range.lower.value;
      if (!aboveLower || range.upper === null) return aboveLower;
      return range.upper.inclusive ? value <= range.upper.value : value < range.upper.value;
    }
    case '<':
    case '>':
    case '<=':
    case '>=':
      return operand.wholeNumber !== undefined && ordered(value - operand.wholeNumber, operator);
  }
}

function compareBoolean(value: boolean, operator: ComparisonOperator, operand: PreparedOperand): boolean {
  switch (operator) {
    case '==':
    case '!=':
    case 'in':
      return (
        operand.interval === undefined &&
        matchAny(operand.booleans.includes(value), operand.booleans.length > 0, operator)
      );
    case '<':
    case '>':
    case '<=':
    case '>=':
      return false;
  }
}

function compareVersion(
  parts: VersionParts,
  operator: ComparisonOperator,
  operand: PreparedOperand,
): boolean {
  const equalsAny = (): boolean =>
    operand.versions.some((candidate) => compareVersionParts(parts, candidate) === 0);
  switch (operator) {
    case '==':
    case '!=':
      return matchAny(equalsAny(), operand.versions.length > 0, operator);
    case 'in':
      if (operand.interval !== undefined) return versionInInterval(parts, operand.interval);
      if (operand.wholeVersion !== undefined) return compareVersionParts(parts, operand.wholeVersion) >= 0;
      return equalsAny();
    case '<':
    case '>':
    case '<=':
    case '>=':
      return (
        operand.wholeVersion !== undefined &&
        ordered(compareVersionParts(parts, operand.wholeVersion), operator)
      );
  }
}

function compareList(
  values: ReadonlySet<string>,
  operator: ComparisonOperator,
  operand: PreparedOperand,
): boolean {
  let shared = false;
  for (const candidate of operand.strings) {
    if (values.has(candidate)) {
      shared = true;
      break;
    }
  }
  switch (operator) {
    case '==':
    case 'in':
      return shared;
    case '!=':
      return !shared;
    case '<':
    case '>':
    case '<=':
    case '>=':
      return false;
  }
}

export function compareProperty(
  property: TypedProperty,
  operator: ComparisonOperator,
  operand: PreparedOperand,
): boolean {
  switch (property.type) {
    case 'string':
      return compareString(property.value, operator, operand);
    case 'int':
    case 'float':
      return compareNumber(property.value, operator, operand);
    case 'boolean':
      return compareBoolean(property.value, operator, operand);
    case 'version':
      return compareVersion(property.parts, operator, operand);
    case 'list of strings':
      return compareList(property.value, operator, operand);
  }
}
