/**
 * The one place where what went wrong with a request becomes what the user reads: an error
 * answer `{statusCode, error, message, details?}` becomes `message (status)` plus one line per
 * invalid field; a request that never got an answer names the exchange and the system's reason.
 */
import { CliError } from '../cli-errors';

export interface ErrorBody {
  statusCode: number;
  error?: string;
  message: string;
  details?: unknown;
}

export interface FieldProblem {
  field: string;
  problems: string[];
}

export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body.statusCode === 'number' && typeof body.message === 'string';
}

/** The `[{field, problems}]` details of a validation error; undefined for any other details. */
export function fieldProblems(details: unknown): FieldProblem[] | undefined {
  if (!Array.isArray(details) || details.length === 0) return undefined;
  const valid = details.every(
    (item: unknown) =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as FieldProblem).field === 'string' &&
      Array.isArray((item as FieldProblem).problems) &&
      (item as FieldProblem).problems.every((problem) => typeof problem === 'string'),
  );
  return valid ? (details as FieldProblem[]) : undefined;
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
 * @param body the parsed answer, or undefined when it was not JSON
 * @param hint added after the message of a 401 (what to do about the credentials)
 */
export function refusal(
  status: number,
  statusText: string,
  body: unknown,
  exchangeUrl: string,
  hint?: string,
): ExchangeRefusal {
  if (!isErrorBody(body)) {
    const text = `${status}${statusText ? ` ${statusText}` : ''}`;
    return new ExchangeRefusal(
      status,
      undefined,
      `the exchange at ${exchangeUrl} answered ${text}; is that URL a Careen exchange?`,
    );
  }
  const suffix = status === 401 && hint ? `; ${hint}` : '';
  const problems = fieldProblems(body.details);
  if (problems) {
    // The server's message repeats the fields after its summary; they get a line each instead.
    const summary = body.message.split(': ')[0] || body.message;
    const lines = problems.map((problem) => `${problem.field}: ${problem.problems.join('; ')}`);
    return new ExchangeRefusal(status, body, `${summary} (${status})${suffix}`, lines);
  }
  return new ExchangeRefusal(status, body, `${body.message} (${status})${suffix}`);
}

/**
 * The system's short reason a request failed without an answer: ECONNREFUSED, ENOTFOUND, …
 * Duck-typed: fetch's errors may come from another realm than this module's Error.
 */
export function failureReason(error: unknown, timeoutMs: number): string {
  const failure = asRecord(error);
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
    return `no answer within ${Math.round(timeoutMs / 1000)}s`;
  }
  const cause = failure.cause ?? error;
  const code = errorCode(cause);
  if (code) return code;
  const message = asRecord(cause).message ?? failure.message;
  return typeof message === 'string' && message ? message : String(error);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function errorCode(error: unknown): string | undefined {
  const { code, errors } = asRecord(error);
  if (typeof code === 'string' && code) return code;
  // A host with several addresses fails with one error per address attempted.
  if (Array.isArray(errors)) return errors.map(errorCode).find((inner) => inner !== undefined);
  return undefined;
}
