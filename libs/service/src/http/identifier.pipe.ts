import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { INVALID_REQUEST } from './error-body';

/**
 * Refuses a path parameter that is not an identifier: ids and names of resources travel in
 * NATS subjects (and node ids in Basic credentials), or not of the pattern a route names
 * instead. Answers like the validation pipe.
 */
export class IdentifierPipe implements PipeTransform<string, string> {
  constructor(
    private readonly field: string,
    private readonly pattern = IDENTIFIER_PATTERN,
    private readonly rule = IDENTIFIER_RULE,
  ) {}

  transform(value: string): string {
    if (!this.pattern.test(value)) {
      const problem = `${this.field} must be ${this.rule}`;
      throw new BadRequestException({
        message: `invalid request: ${this.field}: ${problem}`,
        details: { code: INVALID_REQUEST, fields: [{ field: this.field, problems: [problem] }] },
      });
    }
    return value;
  }
}

/** The ids the services give what they create (sessions, rollouts, subscriptions): version-4 UUIDs. */
const UUID_V4_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const UUID_V4_RULE = 'a UUID (version 4), as the service gave it, e.g. 3f2b8c1e-7d4a-4e6b-9a1c-5b2d8e0f6a47';

/** Refuses a path parameter that is not a service-given UUID, naming the parameter. */
export function uuidPipe(field: string): IdentifierPipe {
  return new IdentifierPipe(field, UUID_V4_PATTERN, UUID_V4_RULE);
}
