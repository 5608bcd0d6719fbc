/**
 * Validation rules shared by the node, service and deployment-policy DTOs: label maps,
 * property values and constraint lists. Shape only; the constraint language itself is checked
 * by the policy library once it is wired in.
 */
import {
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

export const LABEL_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
export const MAX_LABELS = 64;
export const MAX_LABEL_VALUE = 256;
export const MAX_CONSTRAINT_LENGTH = 1000;
export const MAX_CONSTRAINTS = 100;
export const MAX_PROPERTIES = 100;

/** A flat object of string values whose keys are label keys, e.g. `{"zone": "eu-1"}`. */
export function IsLabelMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isLabelMap',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value);
          return (
            entries.length <= MAX_LABELS &&
            entries.every(
              ([key, label]) =>
                LABEL_KEY_PATTERN.test(key) && typeof label === 'string' && label.length <= MAX_LABEL_VALUE,
            )
          );
        },
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be an object of at most ${MAX_LABELS} string values (each ≤ ${MAX_LABEL_VALUE} characters) ` +
          `whose keys are 1-63 letters, digits, '.', '_', '/' or '-'`,
      },
    });
}

/** A property value: a string, a finite number, a boolean or a list of strings. */
export function IsPropertyValue(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPropertyValue',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown): boolean {
          if (typeof value === 'string') return value.length <= 1000;
          if (typeof value === 'number') return Number.isFinite(value);
          if (typeof value === 'boolean') return true;
          return (
            Array.isArray(value) &&
            value.length <= 100 &&
            value.every((item) => typeof item === 'string' && item.length <= 256)
          );
        },
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a string (≤ 1000 characters), a number, a boolean or a list of strings`,
      },
    });
}

/**
 * Like @IsOptional, but only for an absent field: `null` is still validated (and refused by
 * the field's type rules), so it never reaches a NOT NULL column.
 */
export const IsOmittable = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined);
