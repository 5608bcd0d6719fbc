/**
 * The one error a constraint's text can raise: where (0-based character offset), on which
 * token (its source text, empty at the end of input) and what was expected instead.
 */

export class ConstraintSyntaxError extends Error {
  override readonly name = 'ConstraintSyntaxError';

  constructor(
    readonly position: number,
    readonly token: string,
    message: string,
  ) {
    super(message);
  }
}
