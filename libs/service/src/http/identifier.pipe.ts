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
