/**
 * @careen/policy: Careen's constraint language and bidirectional policy compatibility, after
 * Open Horizon's properties and constraints. Pure TypeScript: it imports nothing else.
 */
export {
  PROPERTY_TYPES,
  isPropertyType,
  type Property,
  type PropertyIndex,
  type PropertyType,
  type PropertyValue,
  type TypedProperty,
  type VersionParts,
} from './properties/property.types';
export { compareVersions, compareVersionParts, isVersion, parseVersion } from './properties/version';
export { toSemverRange } from './properties/service-version-range';
export { inferPropertyType } from './properties/property-values';
export { isPropertyName } from './properties/property-name';
export {
  validateProperties,
  type PropertyProblem,
  type PropertyProblemCode,
} from './properties/property.validator';
export { indexProperties } from './properties/property-index';
export {
  BUILTIN_PROPERTY_TYPES,
  CAREEN_AGENT_VERSION,
  CAREEN_ARCH,
  CAREEN_CPUS,
  CAREEN_MEMORY,
  CAREEN_OS,
  builtinNodeProperties,
  type BuiltinNodeFacts,
} from './properties/builtin-properties.constants';

export {
  referencedProperties,
  type AndExpression,
  type ComparisonExpression,
  type ComparisonOperator,
  type ComparisonValue,
  type ConstraintExpression,
  type ExistsExpression,
  type ListValue,
  type NotExpression,
  type OrExpression,
  type RangeBound,
  type RangeValue,
  type ScalarValue,
} from './constraints/constraint.ast';
export { ConstraintSyntaxError } from './constraints/constraint-syntax.error';
export { MAX_NESTING, parseConstraint } from './constraints/constraint.parser';
export { printConstraint } from './constraints/constraint.printer';
export { validateConstraints, type ConstraintProblem } from './constraints/constraint.validator';

export { evaluate, compileExpression, type CompiledExpression } from './evaluation/expression.compiler';
export {
  compileConstraints,
  satisfies,
  unsatisfiedConstraints,
  type CompiledConstraints,
  type ConstraintFailure,
} from './compatibility/compiled-constraints';
export {
  compatible,
  compilePolicy,
  isCompatible,
  type CompatibilityFailure,
  type CompatibilityResult,
  type CompatibilitySide,
  type CompiledPolicy,
  type PolicyParty,
} from './compatibility/policy-compatibility';

export {
  compileSelector,
  disruptiveReason,
  usesPolicyMatching,
  type NmpSelector,
  type SelectableNode,
} from './management/nmp-selection';
