/** Semantic versions, checked with the `semver` package, and service version ranges. */
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { toSemverRange } from '@careen/policy';
import { valid } from 'semver';

/** An exact semantic version such as `1.4.2` or `2.0.0-rc.1` (no `v` prefix, no range). */
export function IsSemver(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSemver',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && valid(value) === value,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a semantic version such as 1.4.2`,
      },
    });
}

/** A semver range such as `>=1.2.0 <2.0.0`, `^1.2` or `*`, or an Open Horizon interval such as `[1.0.0,INFINITY)`. */
export function IsVersionRange(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isVersionRange',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && toSemverRange(value) !== undefined,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a semver range such as ">=1.2.0 <2.0.0" or "^1.2", or an Open Horizon interval such as "[1.0.0,INFINITY)" or "[1.0.0,2.0.0)"`,
      },
    });
}
