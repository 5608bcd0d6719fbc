/**
 * class-validator rules backed by the constraint language, so a bad constraint or property
 * is refused at the door with its position and token, like any other bad field.
 */
import {
  validateConstraints,
  validateProperties,
  type PropertyProblem,
  type PropertyProblemCode,
} from '@careen/policy';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export function IsConstraintList(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isConstraintList',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => Array.isArray(value) && validateConstraints(value).length === 0,
        defaultMessage: (args: ValidationArguments) => {
          if (!Array.isArray(args.value))
            return `${args.property} must be an array of constraint expressions`;
          return validateConstraints(args.value)
            .map((problem) => `${args.property}[${problem.index}]: ${problem.message}`)
            .join('; ');
        },
      },
    });
}

/**
 * Checks a property list with the constraint language's rules. With `alongsideShapeChecks`,
 * it leaves to the nested DTO what the DTO already reports (missing fields, unknown types,
 * values of no property type) and adds only what a DTO cannot see: values that do not fit
 * their declared type, names the language cannot reference, and repeated names.
 */
export function IsPropertyList(
  options: ValidationOptions & { alongsideShapeChecks?: boolean } = {},
): PropertyDecorator {
  const { alongsideShapeChecks, ...validationOptions } = options;
  const problemsOf = (value: unknown[]) =>
    validateProperties(value).filter((problem) => !alongsideShapeChecks || isSemantic(problem));
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPropertyList',
      target: target.constructor,
      propertyName: String(propertyName),
      options: validationOptions,
      validator: {
        validate: (value: unknown) => Array.isArray(value) && problemsOf(value).length === 0,
        defaultMessage: (args: ValidationArguments) => {
          if (!Array.isArray(args.value)) return `${args.property} must be an array of {name, value, type?}`;
          return problemsOf(args.value)
            .map((problem) => `${args.property}[${problem.index}]: ${problem.message}`)
            .join('; ');
        },
      },
    });
}

const SEMANTIC_PROBLEMS = new Set<PropertyProblemCode>(['type-mismatch', 'duplicate-name', 'invalid-name']);

/** A problem the DTO cannot see: an absent name is the DTO's to report, a bad one is ours. */
function isSemantic(problem: PropertyProblem): boolean {
  if (problem.code === 'invalid-name') return Boolean(problem.name);
  return SEMANTIC_PROBLEMS.has(problem.code);
}
