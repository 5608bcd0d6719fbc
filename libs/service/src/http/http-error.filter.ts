/**
 * Turns everything a handler throws into the `{statusCode, error, message, details}` body.
 * Domain errors map by kind; Nest's HTTP exceptions keep their status; Postgres out of reach or
 * too busy to lend a connection in time is a 503 with Retry-After; anything else is a 500 whose
 * cause is logged, never shown.
 */
import { DomainError } from '@careen/contracts';
import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  type LoggerService,
} from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { isDatabaseBusy, isDatabaseUnavailable, isTransientConflict } from './database-unavailable';
import { statusOfErrorKind } from './domain-error.status';
import { errorBody, type ErrorBody, type ErrorDetails } from './error-body';

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: LoggerService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<FastifyReply>();
    const retry = isDatabaseBusy(exception)
      ? 'every database connection stayed in use while the request waited; try again shortly'
      : isDatabaseUnavailable(exception)
        ? 'the database is unavailable; try again shortly'
        : isTransientConflict(exception)
          ? 'the request collided with another one at the database; try again'
          : undefined;
    const body = retry ? errorBody(503, retry) : errorBodyOf(exception);
    if (retry) {
      this.logger.warn(`${retry}: ${String((exception as Error).message)}`, 'HttpErrorFilter');
    } else if (body.statusCode >= 500 && !(exception instanceof DomainError)) {
      this.logger.error(
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
        'HttpErrorFilter',
      );
    }
    if (response.sent) return;
    if (body.statusCode === 401) void response.header('WWW-Authenticate', 'Bearer, Basic realm="careen"');
    if (retry) void response.header('Retry-After', '1');
    void response.status(body.statusCode).send(body);
  }
}

/** The error body of anything a handler threw: a domain error, an HTTP exception, or else a 500. */
export function errorBodyOf(exception: unknown): ErrorBody {
  if (exception instanceof DomainError) {
    // The code is always on the wire, beside whatever else the error tells.
    return errorBody(statusOfErrorKind(exception.kind), exception.message, {
      ...exception.details,
      code: exception.code,
    });
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    if (typeof response === 'string') return errorBody(status, response);
    const { message, details } = response as { message?: unknown; details?: Partial<ErrorDetails> };
    const text = Array.isArray(message)
      ? message.join('; ')
      : typeof message === 'string'
        ? message
        : exception.message;
    return errorBody(status, text, details);
  }
  return errorBody(500, 'internal error');
}
