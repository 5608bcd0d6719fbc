/**
 * A service's refusal as a thrown error, and the answer of a call that succeeded: the one
 * way the clients turn an openapi-fetch result into data or an error.
 */
import { type components } from './generated/exchange';

/** The one error body every service answers with, as the documents describe it. */
export type ErrorBody = components['schemas']['ErrorBody'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The service's error body; undefined when the answer was not one (a proxy's page). */
    readonly body: ErrorBody | undefined,
    readonly url: string,
  ) {
    super(`${status} from ${new URL(url).pathname}: ${body?.message ?? 'not a Careen error answer'}`);
    this.name = 'ApiError';
  }

  /** The stable code the service gave (`details.code`), if it gave one. */
  get code(): string | undefined {
    return this.body?.details.code;
  }
}

/** The data of a 2xx answer; an ApiError for anything else. */
export async function dataOf<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw refusal(response, error);
  return data as T;
}

/** The ApiError of a refused answer, `error` being its body as openapi-fetch parsed it. */
export function refusal(response: Response, error: unknown): ApiError {
  return new ApiError(response.status, isErrorBody(error) ? error : undefined, response.url);
}

export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return (
    typeof body.statusCode === 'number' &&
    typeof body.message === 'string' &&
    typeof (body.details as { code?: unknown } | undefined)?.code === 'string'
  );
}
