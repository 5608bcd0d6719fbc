/**
 * The one place where what went wrong with a request becomes what the user reads: an error
 * answer `{statusCode, error, message, details}` becomes `message (status)` plus one line per
 * invalid field; a request that never got an answer names the exchange and the system's reason.
 */
import { STATUS_CODES } from 'node:http';
import { ApiError, type ErrorBody, isErrorBody, ServiceUnreachable } from '@careen/api-client';
import { type FieldProblem } from '@careen/contracts';
import { CliError } from '../cli-errors';

/** The `{fields: [{field, problems}]}` of a validation error's details; undefined for any other details. */
export function fieldProblems(details: unknown): FieldProblem[] | undefined {
  const fields = (details as { fields?: unknown } | null | undefined)?.fields;
  if (!Array.isArray(fields) || fields.length === 0) return undefined;
  const valid = fields.every(
    (item: unknown) =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as FieldProblem).field === 'string' &&
      Array.isArray((item as FieldProblem).problems) &&
      (item as FieldProblem).problems.every((problem) => typeof problem === 'string'),
  );
  return valid ? (fields as FieldProblem[]) : undefined;
}

/** The exchange answered, and said no. */
export class ExchangeRefusal extends CliError {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    message: string,
    details: readonly string[] = [],
  ) {
    super(message, details);
  }
}

/** The request never got an answer. */
export class ExchangeUnreachable extends CliError {
  constructor(
    readonly exchangeUrl: string,
    readonly reason: string,
  ) {
    super(`cannot reach the exchange at ${exchangeUrl} (${reason})`);
  }
}

/**
 * What the user reads of a failed call to the service at `exchangeUrl`: an ApiError becomes an
 * ExchangeRefusal, a ServiceUnreachable an ExchangeUnreachable; anything else (the user hanging
 * up, say) is left as it is.
 * @param hint added after the message of a 401 (what to do about the credentials)
 */
export function cliErrorOf(error: unknown, exchangeUrl: string, hint?: string): unknown {
  if (error instanceof ApiError) return refusal(error.status, error.body, exchangeUrl, hint);
  if (error instanceof ServiceUnreachable) return new ExchangeUnreachable(exchangeUrl, error.reason);
  return error;
}

/**
 * @param body the error answer, or undefined when it was not one (a proxy's page, say)
 * @param hint added after the message of a 401 (what to do about the credentials)
 */
export function refusal(status: number, body: unknown, exchangeUrl: string, hint?: string): ExchangeRefusal {
  if (!isErrorBody(body)) {
    const reason = STATUS_CODES[status];
    return new ExchangeRefusal(
      status,
      undefined,
      `the exchange at ${exchangeUrl} answered ${status}${reason ? ` ${reason}` : ''}; is that URL a Careen exchange?`,
    );
  }
  const suffix = status === 401 && hint ? `; ${hint}` : '';
  const problems = fieldProblems(body.details);
  if (problems) {
    // The server's message repeats the fields after its summary; they get a line each instead.
    const summary = body.message.split(': ')[0] || body.message;
    const lines = problems.map(
      (problem) => `${problem.field || '(document)'}: ${problem.problems.join('; ')}`,
    );
    return new ExchangeRefusal(status, body, `${summary} (${status})${suffix}`, lines);
  }
  return new ExchangeRefusal(status, body, `${body.message} (${status})${suffix}`);
}
