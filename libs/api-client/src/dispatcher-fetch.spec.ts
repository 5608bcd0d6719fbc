import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { ApiError, dataOf } from './api-error';
import { dispatcherFetch } from './dispatcher-fetch';
import { resilientFetch, type AttemptInit, type SendRequest, ServiceUnreachable } from './resilient-fetch';
import { serviceClient } from './service-client';

interface Paths {
  '/v1/things/{id}': {
    parameters: { path: { id: string }; query?: { wait?: number } };
    get: {
      parameters: { path: { id: string }; query?: { wait?: number } };
      responses: { 200: { content: { 'application/json': { id: string; url: string } } } };
    };
    put: {
      parameters: { path: { id: string } };
      requestBody: { content: { 'application/json': { note: string } } };
      responses: { 204: { content: never } };
    };
  };
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = (seen: Seen, response: ServerResponse) => void;

describe('dispatcherFetch', () => {
  let server: Server;
  let base: string;
  let answers: Answer[];
  let seen: Seen[];
  const agent = new Agent();
  const send = dispatcherFetch(agent);

  beforeEach(async () => {
    answers = [];
    seen = [];
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const each = { method: request.method!, url: request.url!, headers: request.headers, body };
        seen.push(each);
        (answers[seen.length - 1] ?? answers.at(-1)!)(each, response);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterAll(() => agent.close());

  const json =
    (status: number, body: unknown): Answer =>
    (_seen, response) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };

  it("answers a generated client's GET with its path, query and headers, and the data", async () => {
    answers = [(each, response) => json(200, { id: 'a', url: each.url })(each, response)];
    const api = serviceClient<Paths>(base, { fetch: send, headers: { 'x-careen-test': 'yes' } });

    const thing = await dataOf(
      api.GET('/v1/things/{id}', { params: { path: { id: 'a' }, query: { wait: 5 } } }),
    );

    expect(thing).toEqual({ id: 'a', url: '/v1/things/a?wait=5' });
    expect(seen[0]?.headers['x-careen-test']).toBe('yes');
  });

  it('sends a JSON body again from memory when the first attempt met a 503, and reads a 204', async () => {
    answers = [json(503, {}), (_each, response) => response.writeHead(204).end()];
    const api = serviceClient<Paths>(base, { fetch: send, backoffMs: 1 });

    const { response } = await api.PUT('/v1/things/{id}', {
      params: { path: { id: 'a' } },
      body: { note: 'twice' },
    });

    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(seen.map((each) => [each.method, each.body])).toEqual([
      ['PUT', '{"note":"twice"}'],
      ['PUT', '{"note":"twice"}'],
    ]);
  });

  it('names the address a refusal came from', async () => {
    answers = [
      json(404, {
        statusCode: 404,
        error: 'Not Found',
        message: 'no such thing',
        details: { code: 'NOT_FOUND' },
      }),
    ];
    const api = serviceClient<Paths>(base, { fetch: send });

    const refused = dataOf(api.GET('/v1/things/{id}', { params: { path: { id: 'b' } } }));

    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ url: `${base}/v1/things/b`, code: 'NOT_FOUND' });
  });

  it('streams an answer that is not JSON, past the timeout that covers only its head', async () => {
    let more!: () => void;
    const wanted = new Promise<void>((resolve) => (more = resolve));
    answers = [
      (_each, response) => {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.write('first ');
        void wanted.then(() => setTimeout(() => response.end('last'), 100));
      },
    ];
    const answer = await resilientFetch({ timeoutMs: 50, retries: 0, fetch: send })(
      new Request(`${base}/v1/things/a/content`),
    );
    const reader = answer.body!.getReader();
    const first = await reader.read();
    more();
    const chunks = [Buffer.from(first.value!)];
    for (let next = await reader.read(); !next.done; next = await reader.read())
      chunks.push(Buffer.from(next.value));

    expect(Buffer.concat(chunks).toString()).toBe('first last');
  });

  it('gives a JSON answer that stalls halfway up as no answer, so that a GET may be tried again', async () => {
    answers = [
      (_each, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"id": "a", ');
      },
      json(200, { id: 'a', url: 'again' }),
    ];
    const stalling = resilientFetch({ timeoutMs: 100, retries: 0, fetch: send });
    await expect(stalling(new Request(`${base}/v1/things/a`))).rejects.toEqual(
      new ServiceUnreachable(`${base}/v1/things/a`, 'no answer within 0s'),
    );

    const retrying = resilientFetch({ timeoutMs: 100, retries: 1, backoffMs: 1, fetch: send });
    seen = [];
    expect(await (await retrying(new Request(`${base}/v1/things/a`))).json()).toEqual({
      id: 'a',
      url: 'again',
    });
  });

  it('sends a streamed body once, as it comes', async () => {
    answers = [(_each, response) => response.writeHead(204).end()];
    const upload = Readable.toWeb(Readable.from([Buffer.from('part one, '), Buffer.from('part two')]));

    const answer = await resilientFetch({ fetch: send })(
      new Request(`${base}/v1/things/a/content`, {
        method: 'POST',
        body: upload as ReadableStream,
        duplex: 'half',
      } as RequestInit),
    );

    expect(answer.status).toBe(204);
    expect(seen.map((each) => each.body)).toEqual(['part one, part two']);
  });

  it("ends with the caller's own abort when the caller hangs up, and is not tried again", async () => {
    answers = [() => undefined];
    const hangUp = new AbortController();
    const asked = resilientFetch({ fetch: send, backoffMs: 1 })(
      new Request(`${base}/v1/things/a`, { signal: hangUp.signal }),
    );
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    hangUp.abort(new Error('the caller hung up'));

    await expect(asked).rejects.toThrow('the caller hung up');
    expect(seen).toHaveLength(1);
  });

  it('stops watching an answer read whole, where one still to be read stays watched', async () => {
    answers = [json(200, { id: 'a', url: 'x' })];
    const signals: AbortSignal[] = [];
    const recording =
      (inner: SendRequest): SendRequest =>
      (request: Request, init?: AttemptInit) => {
        signals.push(init!.signal!);
        return inner(request, init);
      };
    const whole = await resilientFetch({ timeoutMs: 200, fetch: recording(send) })(
      new Request(`${base}/v1/things/a`),
    );
    const unread = await resilientFetch({
      timeoutMs: 200,
      fetch: recording((request, init) => fetch(request, init)),
    })(new Request(`${base}/v1/things/a`));
    expect(await whole.json()).toEqual({ id: 'a', url: 'x' });

    // Both timeouts are the same, and the whole answer's began first: had it still been
    // watched, its timer would have fired before the other's.
    await new Promise((resolve) => signals[1]!.addEventListener('abort', resolve));
    expect(signals[0]!.aborted).toBe(false);
    await expect(unread.json()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
