/**
 * The request the generated clients build for each call, when its body is JSON text or absent:
 * the URL, method, headers, text and the caller's signal, as given. Node's `Request` copies
 * all of these, wraps the text in a web stream and makes an abort signal of its own, which cost
 * an agent's poll or status report about as much CPU as undici's whole exchange. Any other body
 * (an upload, a stream) still gets a `Request`. `resilientFetch` and `dispatcherFetch` read a
 * request only through the functions below, so either kind goes anywhere a request goes.
 */
import { type AttemptInit } from './resilient-fetch';

export class LeanRequest {
  readonly url!: string;
  readonly method!: string;
  readonly headers!: Headers;
  /** The body, as the client serialized it (not Request's `text()`, which reads a stream). */
  readonly serializedBody: string | undefined;
  /** What the caller gave to stop the request, if anything. */
  readonly callerSignal: AbortSignal | undefined;
  private made: AbortSignal | undefined;

  constructor(input: string | URL, init: RequestInit = {}) {
    if (init.body != null && typeof init.body !== 'string')
      return new Request(input, init) as unknown as LeanRequest;
    this.url = String(input);
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.serializedBody = init.body ?? undefined;
    this.callerSignal = init.signal ?? undefined;
  }

  /** For readers that expect a Request's: one that never aborts when the caller gave none. */
  get signal(): AbortSignal {
    return this.callerSignal ?? (this.made ??= new AbortController().signal);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.serializedBody === undefined ? null : new Response(this.serializedBody).body;
  }

  clone(): LeanRequest {
    return new LeanRequest(this.url, {
      method: this.method,
      headers: new Headers(this.headers),
      body: this.serializedBody,
      signal: this.callerSignal,
    });
  }

  /** A client's middleware may hand back either kind as "a Request". */
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      value instanceof Request || Object.prototype.isPrototypeOf.call(LeanRequest.prototype, value as object)
    );
  }
}

function isLean(request: Request | LeanRequest): request is LeanRequest {
  return Object.prototype.isPrototypeOf.call(LeanRequest.prototype, request);
}

/** The signal the caller gave, if any (a Request always has one). */
export function callerSignal(request: Request): AbortSignal | undefined {
  const either = request as Request | LeanRequest;
  return isLean(either) ? either.callerSignal : either.signal;
}

/** The body, to send again on each attempt: a lean request's text as it is, a Request's bytes read once. */
export async function bodyToResend(request: Request): Promise<string | ArrayBuffer | undefined> {
  const either = request as Request | LeanRequest;
  if (isLean(either)) return either.serializedBody;
  return either.body === null ? undefined : either.arrayBuffer();
}

/** A body that can be sent as it is without reading a stream: a lean request's text. */
export function bodyText(request: Request): string | undefined {
  const either = request as Request | LeanRequest;
  return isLean(either) ? either.serializedBody : undefined;
}

/** What `fetch` takes for this request and attempt: a Request as it is, a lean one as its parts. */
export function fetchInput(request: Request, init: AttemptInit): [Request | string, RequestInit] {
  const either = request as Request | LeanRequest;
  // `duplex` lets Node's fetch send a streamed body.
  if (!isLean(either)) return [request, { ...init, duplex: 'half' } as RequestInit];
  return [
    either.url,
    {
      method: either.method,
      headers: init.headers ?? either.headers,
      body: init.body ?? either.serializedBody,
      signal: init.signal ?? either.callerSignal,
    },
  ];
}
