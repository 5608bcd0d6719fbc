/**
 * Validates every request DTO: unknown fields are refused, wrong types named, and every
 * problem listed at once in `details` as `{field, problems}`.
 */
import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';

export interface FieldProblem {
  field: string;
  problems: string[];
}

export function fieldProblems(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const details = fieldProblems(errors);
      const message = details.map((detail) => `${detail.field}: ${detail.problems.join(', ')}`).join('; ');
      return new BadRequestException({ message: `invalid request: ${message}`, details });
    },
  });
}
