/**
 * A `SendRequest` that sends through an undici dispatcher's own request API instead of the
 * WHATWG `fetch` built on the same dispatcher. That `fetch` copies the request, and makes web
 * streams and abort signals for each copy. For a small JSON request this cost a client about
 * twice the CPU of the HTTP exchange itself. An agent pays it on every poll and status report:
 * on a small edge box, or a thousand times over in a simulated fleet.
 *
 * A JSON answer is read whole before it is handed over (the clients parse it at once anyway),
 * and marked so that the caller's timeout can stop watching it; its text and JSON then come from
 * memory, not through a web stream over its bytes, which cost a small answer about as much CPU
 * again as its HTTP exchange. Any other answer streams to its reader. Redirects are not followed:
 * the hub's services answer where they are asked.
 */
import { Readable } from 'node:stream';
import { type ReadableStream as WebReadableStream } from 'node:stream/web';
import { type Dispatcher } from 'undici';
import { bodyText, callerSignal } from './lean-request';
import { answeredWhole, isJson, type AttemptInit, type SendRequest } from './resilient-fetch';

const encoder = new TextEncoder();

/** Statuses whose answers have no body, by HTTP's rules. */
const BODILESS_STATUSES = new Set([101, 103, 204, 205, 304]);

export function dispatcherFetch(dispatcher: Dispatcher): SendRequest {
  return async (request: Request, init: AttemptInit = {}) => {
    const url = new URL(request.url);
    const answer = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers: headerList(init.headers ?? request.headers),
      body: bodyOf(request, init),
      signal: init.signal ?? callerSignal(request),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers))
      for (const each of Array.isArray(value) ? value : [value ?? '']) headers.append(name, each);
    const status = answer.statusCode;
    let response: Response;
    if (BODILESS_STATUSES.has(status) || request.method === 'HEAD') {
      await answer.body.dump();
      response = new Response(null, { status, headers });
    } else if (isJson(headers)) {
      response = answeredWhole(new WholeAnswer(await answer.body.text(), { status, headers }));
    } else {
      response = new Response(answer.body as unknown as ConstructorParameters<typeof Response>[0], {
        status,
        headers,
      });
    }
    // What a refusal names as the address it came from.
    Object.defineProperty(response, 'url', { value: request.url });
    return response;
  };
}

/** An answer already in memory, as text: read any number of times, never as a stream (`body` is null). */
class WholeAnswer extends Response {
  constructor(
    readonly whole: string,
    readonly init: ResponseInit,
  ) {
    super(null, init);
  }
}

// Its readers go on the prototype, made once: the DOM's types declare them as properties, which
// a class body could only override with a closure per answer.
Object.assign(WholeAnswer.prototype, {
  text(this: WholeAnswer): Promise<string> {
    return Promise.resolve(this.whole);
  },
  json(this: WholeAnswer): Promise<unknown> {
    return new Promise((resolve) => resolve(JSON.parse(this.whole)));
  },
  arrayBuffer(this: WholeAnswer): Promise<ArrayBuffer> {
    return Promise.resolve(encoder.encode(this.whole).buffer as ArrayBuffer);
  },
  clone(this: WholeAnswer): Response {
    const copy = new WholeAnswer(this.whole, this.init);
    Object.defineProperty(copy, 'url', { value: this.url });
    return answeredWhole(copy);
  },
});

function headerList(headers: Headers): string[] {
  const list: string[] = [];
  headers.forEach((value, name) => list.push(name, value));
  return list;
}

function bodyOf(request: Request, init: AttemptInit): string | Buffer | Readable | undefined {
  if (typeof init.body === 'string') return init.body;
  if (init.body !== undefined) return Buffer.from(init.body);
  const text = bodyText(request);
  if (text !== undefined) return text;
  if (request.body === null) return undefined;
  // A streamed body (an upload) goes as it comes, once.
  return Readable.fromWeb(request.body as WebReadableStream<Uint8Array>);
}
