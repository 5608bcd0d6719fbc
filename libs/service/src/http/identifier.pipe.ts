import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { BadRequestException, type PipeTransform } from '@nestjs/common';

/** Checks a route parameter that names a resource: it travels in NATS subjects, so it must be an identifier. */
export class IdentifierPipe implements PipeTransform<string, string> {
  constructor(private readonly field: string) {}

  transform(value: string): string {
    if (!IDENTIFIER_PATTERN.test(value)) {
      throw new BadRequestException({
        message: `invalid request: ${this.field} must be ${IDENTIFIER_RULE}`,
        details: [{ field: this.field, problems: [`${this.field} must be ${IDENTIFIER_RULE}`] }],
      });
    }
    return value;
  }
}
