/**
 * Validates every request DTO: unknown fields are refused, wrong types named, and every
 * problem listed at once in `details` as `{field, problems}`. A body meant for a DTO that is
 * not a JSON object (missing, another content type, an array) is refused before its fields are
 * looked at; a route that takes its body untyped (a document it reads itself) gets it as sent.
 */
import {
  type ArgumentMetadata,
  BadRequestException,
  ValidationPipe,
  type ValidationError,
} from '@nestjs/common';

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

class RequestValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const dto = metadata.metatype !== undefined && metadata.metatype !== Object;
    if (
      metadata.type === 'body' &&
      dto &&
      (typeof value !== 'object' || value === null || Array.isArray(value))
    ) {
      throw new BadRequestException(
        'invalid request: the body must be a JSON object sent as application/json',
      );
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
      const details = fieldProblems(errors);
      const message = details.map((detail) => `${detail.field}: ${detail.problems.join(', ')}`).join('; ');
      return new BadRequestException({ message: `invalid request: ${message}`, details });
    },
  });
}
