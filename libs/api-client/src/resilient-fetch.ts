/**
 * The one place where Careen's HTTP clients time out, retry and sign in: a `fetch` for the
 * generated clients. Each attempt has its own timeout. A request that got no answer (refused,
 * reset, timed out) or a 429, 502, 503 or 504 is tried again after a jittered, growing delay
 * (honouring `Retry-After`) when it is safe to send twice: GET, HEAD, PUT and DELETE are; a
 * POST only when the caller says so. A 401 drops the token and tries once more with a new one.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { bodyToResend, callerSignal, fetchInput } from './lean-request';

/** Where a client's bearer token comes from; it is asked again after `invalidate`. */
export interface BearerSource {
  bearer(): Promise<string>;
  invalidate(): void;
}

/** What one attempt changes of the request it sends. */
export interface AttemptInit {
  signal?: AbortSignal;
  headers?: Headers;
  /** The request's body, read once (or its text as given), for each attempt to send again. */
  body?: ArrayBuffer | string;
}

/**
 * Sends one request: `fetch`, or a fetch bound to a connection pool of its own. `init`, when
 * given, overrides the request's signal, headers and body, as it does for `fetch` itself.
 */
export type SendRequest = (request: Request, init?: AttemptInit) => Promise<Response>;

export interface FetchPolicy {
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** Attempts after the first, for a request safe to repeat (default 2). */
  retries?: number;
  /** The delay before the first retry; each next one doubles (default 250 ms). */
  backoffMs?: number;
  /** Retries a POST too: the route treats a repeat as the same request. */
  idempotent?: boolean;
  auth?: BearerSource;
  /** Sent with every request that does not set them itself (a caller's own Authorization, say). */
  headers?: Record<string, string>;
  /** Stops the waits between attempts, and the attempt under way. */
  signal?: AbortSignal;
  fetch?: SendRequest;
}

const SAFE_TO_REPEAT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);
const LONGEST_WAIT_MS = 30_000;

/** Answers whose body their SendRequest has read whole: no stall can come, no timeout watches. */
const wholeAnswers = new WeakSet<Response>();

/** Marks an answer whose body is already in memory; a SendRequest that reads JSON whole uses it. */
export function answeredWhole(response: Response): Response {
  wholeAnswers.add(response);
  return response;
}

/** Whether an answer is JSON, as the clients parse it (a service that says nothing says JSON). */
export function isJson(headers: Headers): boolean {
  return /json/i.test(headers.get('content-type') ?? 'json');
}

/** The service never answered: refused, reset, unresolvable, or no answer within the timeout. */
export class ServiceUnreachable extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${new URL(url).origin} unreachable: ${reason}`);
    this.name = 'ServiceUnreachable';
  }
}

export function resilientFetch(policy: FetchPolicy = {}): SendRequest {
  const timeoutMs = policy.timeoutMs ?? 30_000;
  const retries = policy.retries ?? 2;
  const send: SendRequest = policy.fetch ?? ((request, init = {}) => fetch(...fetchInput(request, init)));
  return async (request) => {
    const repeatable = SAFE_TO_REPEAT.has(request.method) || policy.idempotent === true;
    // A body that may be sent again is read once, for each attempt to send from memory. A
    // request sent once is sent as it is: reading a streamed body (an upload) would keep every
    // chunk of it in memory for an attempt that never comes.
    const mayResend = (repeatable && retries > 0) || policy.auth !== undefined;
    const body = mayResend ? await bodyToResend(request) : undefined;
    let reauthenticated = false;
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(request, body, timeoutMs, policy, send);
      const response = outcome instanceof Response ? outcome : undefined;
      if (response?.status === 401 && policy.auth && !reauthenticated) {
        await response.body?.cancel();
        policy.auth.invalidate();
        reauthenticated = true;
        attempt--;
        continue;
      }
      const transient = response === undefined || TRANSIENT_STATUSES.has(response.status);
      const caller = callerSignal(request);
      if (!transient || !repeatable || attempt >= retries || policy.signal?.aborted || caller?.aborted) {
        if (response) return response;
        throw outcome;
      }
      await response?.body?.cancel();
      const stops = [caller, policy.signal].filter((signal) => signal !== undefined);
      const stop = stops.length > 1 ? AbortSignal.any(stops) : stops[0];
      await pause(delayMs(policy.backoffMs ?? 250, attempt, response), undefined, { signal: stop });
    }
  };
}

/**
 * The answer, or the ServiceUnreachable that says why there was none. The timeout covers a
 * JSON answer whole, so a connection that stalls halfway through one is given up; for anything
 * else (a download, server-sent events) it ends with the answer's head, and the body may take
 * as long as it takes.
 */
async function attemptOnce(
  request: Request,
  body: ArrayBuffer | string | undefined,
  timeoutMs: number,
  policy: FetchPolicy,
  send: SendRequest,
): Promise<Response | ServiceUnreachable> {
  const answered = new AbortController();
  const timer = setTimeout(
    () => answered.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  // Left running for a JSON body still to be read; it keeps nothing alive, and aborting a
  // request that has ended does nothing.
  timer.unref();
  // The caller hanging up ends the attempt too. A listener rather than AbortSignal.any, which
  // costs more than the rest of the attempt; the policy's signal outlives the request, so it
  // joins the weakly held way.
  const caller = callerSignal(request);
  const hangUp = () => answered.abort(caller?.reason);
  if (caller?.aborted) hangUp();
  else caller?.addEventListener('abort', hangUp, { once: true });
  const signal = policy.signal ? AbortSignal.any([answered.signal, policy.signal]) : answered.signal;
  const headers = new Headers(request.headers);
  for (const [name, value] of Object.entries(policy.headers ?? {}))
    if (!headers.has(name)) headers.set(name, value);
  let stopWatching = false;
  try {
    if (policy.auth) headers.set('authorization', `Bearer ${await policy.auth.bearer()}`);
    const response = await send(request, { signal, headers, body });
    stopWatching = wholeAnswers.has(response) || !isJson(response.headers);
    return response;
  } catch (error) {
    stopWatching = true;
    // A caller that hung up gets its own abort, not a retry.
    if (caller?.aborted || policy.signal?.aborted) throw error;
    return new ServiceUnreachable(request.url, reasonOf(error, timeoutMs));
  } finally {
    if (stopWatching) clearTimeout(timer);
  }
}

function delayMs(backoffMs: number, attempt: number, response: Response | undefined): number {
  const retryAfter = Number(response?.headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(retryAfter * 1_000, LONGEST_WAIT_MS);
  // Full jitter: replicas retrying together after an outage do not arrive together.
  return Math.random() * Math.min(backoffMs * 2 ** attempt, LONGEST_WAIT_MS);
}

/**
 * The system's short reason a request got no answer: ECONNREFUSED, ENOTFOUND, a timeout, …
 * Duck-typed: fetch's errors may come from another realm than this module's Error.
 */
export function reasonOf(error: unknown, timeoutMs: number): string {
  const failure = asRecord(error);
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError')
    return `no answer within ${Math.round(timeoutMs / 1000)}s`;
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
