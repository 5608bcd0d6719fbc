import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { ApiError, dataOf } from './api-error';
import { answeringServers, json, type Paths, refusal } from './answering-server.fixtures';
import { dispatcherFetch } from './dispatcher-fetch';
import { resilientFetch, type AttemptInit, type SendRequest, ServiceUnreachable } from './resilient-fetch';
import { serviceClient } from './service-client';

describe('dispatcherFetch', () => {
  const serve = answeringServers();
  const agent = new Agent();
  const send = dispatcherFetch(agent);
  afterAll(() => agent.close());

  it("answers a generated client's GET with its path, query and headers, and the data", async () => {
    const { url, requests } = await serve((request, body, response) =>
      json(200, { id: 'a', seen: request.url })(request, body, response),
    );
    const api = serviceClient<Paths>(url, { fetch: send, headers: { 'x-careen-test': 'yes' } });

    const thing = await dataOf(
      api.GET('/v1/things/{id}', { params: { path: { id: 'a' }, query: { wait: 5 } } }),
    );

    expect(thing).toEqual({ id: 'a', seen: '/v1/things/a?wait=5' });
    expect(requests[0]?.headers['x-careen-test']).toBe('yes');
  });

  it('sends a JSON body again from memory when the first attempt met a 503, and reads a 204', async () => {
    const { url, requests, bodies } = await serve(json(503, {}), (_request, _body, response) =>
      response.writeHead(204).end(),
    );
    const api = serviceClient<Paths>(url, { fetch: send, backoffMs: 1 });

    const { response } = await api.PUT('/v1/things/{id}', {
      params: { path: { id: 'a' } },
      body: { note: 'twice' },
    });

    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(requests.map((request) => request.method)).toEqual(['PUT', 'PUT']);
    expect(bodies).toEqual(['{"note":"twice"}', '{"note":"twice"}']);
  });

  it('names the address a refusal came from', async () => {
    const { url } = await serve(refusal(404, 'NOT_FOUND'));
    const api = serviceClient<Paths>(url, { fetch: send });

    const refused = dataOf(api.GET('/v1/things/{id}', { params: { path: { id: 'b' } } }));

    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ url: `${url}/v1/things/b`, code: 'NOT_FOUND' });
  });

  it('streams an answer that is not JSON, past the timeout that covers only its head', async () => {
    let more!: () => void;
    const wanted = new Promise<void>((resolve) => (more = resolve));
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write('first ');
      void wanted.then(() => setTimeout(() => response.end('last'), 100));
    });
    const answer = await resilientFetch({ timeoutMs: 50, retries: 0, fetch: send })(
      new Request(`${url}/v1/things/a/content`),
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
    const stall: Parameters<typeof serve>[0] = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id": "a", ');
    };
    const stalling = await serve(stall);
    await expect(
      resilientFetch({ timeoutMs: 100, retries: 0, fetch: send })(new Request(`${stalling.url}/v1/things/a`)),
    ).rejects.toEqual(new ServiceUnreachable(`${stalling.url}/v1/things/a`, 'no answer within 0s'));

    const recovering = await serve(stall, json(200, { id: 'a', seen: 'again' }));
    const retrying = resilientFetch({ timeoutMs: 100, retries: 1, backoffMs: 1, fetch: send });
    expect(await (await retrying(new Request(`${recovering.url}/v1/things/a`))).json()).toEqual({
      id: 'a',
      seen: 'again',
    });
  });

  it('sends a streamed body once, as it comes', async () => {
    const { url, bodies } = await serve((_request, _body, response) => response.writeHead(204).end());
    const upload = Readable.toWeb(Readable.from([Buffer.from('part one, '), Buffer.from('part two')]));

    const answer = await resilientFetch({ fetch: send })(
      new Request(`${url}/v1/things/a/content`, {
        method: 'POST',
        body: upload as ReadableStream,
        duplex: 'half',
      } as RequestInit),
    );

    expect(answer.status).toBe(204);
    expect(bodies).toEqual(['part one, part two']);
  });

  it("ends with the caller's own abort when the caller hangs up, and is not tried again", async () => {
    const { url, requests, server } = await serve(() => undefined);
    const hangUp = new AbortController();
    const asked = resilientFetch({ fetch: send, backoffMs: 1 })(
      new Request(`${url}/v1/things/a`, { signal: hangUp.signal }),
    );
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    hangUp.abort(new Error('the caller hung up'));

    await expect(asked).rejects.toThrow('the caller hung up');
    expect(requests).toHaveLength(1);
  });

  it('stops watching an answer read whole, where one still to be read stays watched', async () => {
    const { url } = await serve(json(200, { id: 'a', seen: 'x' }));
    const signals: AbortSignal[] = [];
    const recording =
      (inner: SendRequest): SendRequest =>
      (request: Request, init?: AttemptInit) => {
        signals.push(init!.signal!);
        return inner(request, init);
      };
    const whole = await resilientFetch({ timeoutMs: 200, fetch: recording(send) })(
      new Request(`${url}/v1/things/a`),
    );
    const unread = await resilientFetch({
      timeoutMs: 200,
      fetch: recording((request, init) => fetch(request, init)),
    })(new Request(`${url}/v1/things/a`));
    expect(await whole.json()).toEqual({ id: 'a', seen: 'x' });

    // Both timeouts are the same, and the whole answer's began first: had it still been
    // watched, its timer would have fired before the other's.
    await new Promise((resolve) => signals[1]!.addEventListener('abort', resolve));
    expect(signals[0]!.aborted).toBe(false);
    await expect(unread.json()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
