import { type ErrorKind } from '@careen/contracts';

/** HTTP status of each domain error kind. */
export function statusOfErrorKind(kind: ErrorKind): number {
  switch (kind) {
    case 'invalid':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not-found':
      return 404;
    case 'conflict':
      return 409;
    case 'gone':
      return 410;
    case 'too-large':
      return 413;
    case 'unavailable':
      return 503;
  }
}
