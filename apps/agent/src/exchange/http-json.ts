/** JSON over fetch for the agent's clients; a non-2xx answer becomes an HttpError carrying the body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly url: string,
  ) {
    super(`${status} from ${url}: ${describe(body)}`);
  }
}

/**
 * `path` (`/v1/…`) under a service's base URL, keeping the base's own path: behind an Ingress
 * that routes by prefix, `https://hub/exchange` + `/v1/orgs` is `https://hub/exchange/v1/orgs`.
 */
export function serviceUrl(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}

/** The error code a Careen service put in an error answer's details, if any. */
export function errorCode(error: unknown): string | undefined {
  if (!(error instanceof HttpError)) return undefined;
  const details = (error.body as { details?: { code?: unknown } } | undefined)?.details;
  return typeof details?.code === 'string' ? details.code : undefined;
}

/** The server could not be reached at all (refused, reset, timed out). */
export class UnreachableError extends Error {}

export interface JsonRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export async function requestJson<T>(url: URL, request: JsonRequest = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const signals = [AbortSignal.timeout(request.timeoutMs ?? 30_000)];
  if (request.signal) signals.push(request.signal);
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method ?? 'GET',
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    throw new UnreachableError(`${url.origin} unreachable: ${(error as Error).message}`);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  if (!response.ok) throw new HttpError(response.status, body, `${request.method ?? 'GET'} ${url.pathname}`);
  return body as T;
}

function describe(body: unknown): string {
  if (body && typeof body === 'object' && 'message' in body)
    return String((body as { message: unknown }).message);
  return typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body);
}
