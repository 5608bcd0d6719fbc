/**
 * A refusal from a service, read from the error body every Careen service answers with
 * (`{statusCode, error, message, details: {code, fields?}}`): what to tell the person, and
 * each field's problems to show next to that field.
 */
export interface FieldProblems {
  field: string;
  problems: string[];
}

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly fields: FieldProblems[] = [],
  ) {
    super(message);
    this.name = 'ApiProblem';
  }

  /** The problems of one field (`window`, `hosts`, `projects.shop.reply_timeout_seconds` under `projects`). */
  problemsOf(field: string): string[] {
    return this.fields.filter((entry) => isPartOf(entry.field, field)).flatMap((entry) => entry.problems);
  }
}

/** Whether a refused field is `field` or a part of it. */
export function isPartOf(refused: string, field: string): boolean {
  return refused === field || refused.startsWith(`${field}.`) || refused.startsWith(`${field}[`);
}

/** The problem an answer's body describes; a body that is not one is described by its status. */
export function problemFrom(status: number, body: unknown, service: string): ApiProblem {
  if (isRecord(body) && typeof body.message === 'string') {
    const details = isRecord(body.details) ? body.details : {};
    const code = typeof details.code === 'string' ? details.code : String(status);
    const fields = Array.isArray(details.fields) ? details.fields.filter(isFieldProblems) : [];
    return new ApiProblem(status, body.message, code, fields);
  }
  // FleetLock's own shape, and anything a proxy in between answers.
  if (isRecord(body) && typeof body.value === 'string')
    return new ApiProblem(status, body.value, String(body.kind));
  return new ApiProblem(
    status,
    `the ${service} service answered ${status}${statusWords(status)}`,
    String(status),
  );
}

function statusWords(status: number): string {
  if (status === 502 || status === 503 || status === 504)
    return ': it is not reachable now, try again in a moment';
  return '';
}

function isFieldProblems(value: unknown): value is FieldProblems {
  return (
    isRecord(value) &&
    typeof value.field === 'string' &&
    Array.isArray(value.problems) &&
    value.problems.every((problem) => typeof problem === 'string')
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
