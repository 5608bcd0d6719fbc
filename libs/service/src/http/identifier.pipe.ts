import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { INVALID_REQUEST } from './error-body';

/**
 * Refuses a path parameter that is not an identifier: ids and names of resources travel in
 * NATS subjects (and node ids in Basic credentials). Answers like the validation pipe.
 */
export class IdentifierPipe implements PipeTransform<string, string> {
  constructor(private readonly field: string) {}

  transform(value: string): string {
    if (!IDENTIFIER_PATTERN.test(value)) {
      const problem = `${this.field} must be ${IDENTIFIER_RULE}`;
      throw new BadRequestException({
        message: `invalid request: ${this.field}: ${problem}`,
        details: { code: INVALID_REQUEST, fields: [{ field: this.field, problems: [problem] }] },
      });
    }
    return value;
  }
}
