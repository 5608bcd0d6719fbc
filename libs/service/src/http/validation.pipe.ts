/**
 * Validates every request DTO: unknown fields are refused, wrong types named, and every
 * problem listed at once in `details.fields` as `{field, problems}`. A body meant for a DTO that is
 * not a JSON object (missing, another content type, an array) is refused before its fields are
 * looked at; a route that takes its body untyped (a document it reads itself) gets it as sent.
 * A DTO with a compiled check (compiled-check.ts in libs/contracts) is taken at once when that check accepts it.
 */
import { type FieldProblem } from '@careen/contracts';
import {
  type ArgumentMetadata,
  BadRequestException,
  ValidationPipe,
  type ValidationError,
  type ValidationPipeOptions,
} from '@nestjs/common';
import { checkCompiled } from '@careen/contracts';
import { INVALID_REQUEST } from './error-body';

export function fieldProblems(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

class RequestValidationPipe extends ValidationPipe {
  constructor(
    options: ValidationPipeOptions,
    private readonly compiledChecks: boolean,
  ) {
    super(options);
  }

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
    if (this.compiledChecks && dto && (metadata.type === 'body' || metadata.type === 'query')) {
      const checked = checkCompiled(metadata.metatype!, metadata.type, value);
      if (checked) return Promise.resolve(checked);
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

/** @param options.compiledChecks whether DTOs with a compiled check are judged by it first (the default) */
export function createValidationPipe({ compiledChecks = true } = {}): ValidationPipe {
  return new RequestValidationPipe(
    {
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
    },
    compiledChecks,
  );
}
