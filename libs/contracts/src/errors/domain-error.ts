/**
 * Errors raised by domain rules, free of any transport. Each carries a kind that every
 * transport maps once (HTTP status, dead-letter reason) and a stable code clients can match.
 */
export const ERROR_KINDS = [
  'invalid',
  'unauthenticated',
  'forbidden',
  'not-found',
  'conflict',
  'gone',
  'too-large',
  'unavailable',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
