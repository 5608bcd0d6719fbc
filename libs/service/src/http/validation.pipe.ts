/**
 * Validates every request DTO: unknown fields are refused, wrong types named, and every
 * problem listed at once in `details.fields` as `{field, problems}`. A body meant for a DTO that is
 * not a JSON object (missing, another content type, an array) is refused before its fields are
 * looked at; a route that takes its body untyped (a document it reads itself) gets it as sent.
 */
import { type FieldProblem } from '@careen/contracts';
import {
  type ArgumentMetadata,
  BadRequestException,
  ValidationPipe,
  type ValidationError,
} from '@nestjs/common';
import { INVALID_REQUEST } from './error-body';

export function fieldProblems(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

class RequestValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const dto = metadata.metatype !== undefined && metadata.metatype !== Object;
    if (
      metadata.type === 'body' &&
      dto &&
      (typeof value !== 'object' || value === null || Array.isArray(value))
    ) {
      throw new BadRequestException({
        message: 'invalid request: the body must be a JSON object sent as application/json',
        details: { code: INVALID_REQUEST, fields: [] },
      });
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = fieldProblems(errors);
      const message = fields.map((field) => `${field.field}: ${field.problems.join(', ')}`).join('; ');
      return new BadRequestException({
        message: `invalid request: ${message}`,
        details: { code: INVALID_REQUEST, fields },
      });
    },
  });
}
