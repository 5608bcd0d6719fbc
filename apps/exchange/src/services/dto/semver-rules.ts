/** Semantic versions and ranges, checked with the `semver` package. */
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { valid, validRange } from 'semver';

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

/** A semver range such as `>=1.2.0 <2.0.0`, `^1.2` or `*`. */
export function IsSemverRange(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSemverRange',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' &&
          value.trim().length > 0 &&
          value.length <= 256 &&
          validRange(value) !== null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a semver range such as ">=1.2.0 <2.0.0" or "^1.2"`,
      },
    });
}
