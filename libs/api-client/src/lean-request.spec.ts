import { Agent } from 'undici';
import { dataOf } from './api-error';
import { answeringServers, json, type Paths, refusal } from './answering-server.fixtures';
import { dispatcherFetch } from './dispatcher-fetch';
import { LeanRequest } from './lean-request';
import { resilientFetch, type SendRequest } from './resilient-fetch';
import { serviceClient } from './service-client';

describe('LeanRequest', () => {
  const serve = answeringServers();
  const agent = new Agent();
  afterAll(() => agent.close());

  it('keeps a JSON body as text and gives any other body a Request, both taken as requests', () => {
    const lean = new LeanRequest('http://hub/v1/things/a', { method: 'put', body: '{"note":"n"}' });
    expect(lean).not.toBeInstanceOf(Request);
    expect([lean.method, lean.serializedBody, lean.signal.aborted]).toEqual(['PUT', '{"note":"n"}', false]);
    const upload = new LeanRequest('http://hub/v1/things/a', {
      method: 'POST',
      body: new Uint8Array([1, 2]),
    });
    expect(upload).toBeInstanceOf(Request);
    // What a client's middleware hands back is checked against the client's Request class.
    expect(upload).toBeInstanceOf(LeanRequest);
    expect(lean).toBeInstanceOf(LeanRequest);
    expect(lean.clone()).toMatchObject({ url: lean.url, method: 'PUT', serializedBody: lean.serializedBody });
  });

  describe.each<[string, () => SendRequest | undefined]>([
    ["Node's fetch", () => undefined],
    ["an undici pool's own request API", () => dispatcherFetch(agent)],
  ])('sent by %s', (_name, sender) => {
    it('sends the JSON body again after a 503, with its headers', async () => {
      const { url, requests, bodies } = await serve(
        refusal(503, 'SERVICE_UNAVAILABLE'),
        (_request, _body, response) => response.writeHead(204).end(),
      );
      const client = serviceClient<Paths>(url, {
        backoffMs: 1,
        fetch: sender(),
        auth: { bearer: async () => 'token', invalidate: () => undefined },
      });
      await dataOf(client.PUT('/v1/things/{id}', { params: { path: { id: 'a' } }, body: { note: 'n' } }));
      expect(bodies).toEqual(['{"note":"n"}', '{"note":"n"}']);
      expect(
        requests.map((request) => [
          request.method,
          request.headers['content-type'],
          request.headers.authorization,
        ]),
      ).toEqual([
        ['PUT', 'application/json', 'Bearer token'],
        ['PUT', 'application/json', 'Bearer token'],
      ]);
    });

    it("ends with the caller's abort, and answers a request the caller gave no signal", async () => {
      const { url, server } = await serve(() => undefined);
      const client = serviceClient<Paths>(url, { fetch: sender() });
      const hangUp = new AbortController();
      const asked = client.GET('/v1/things/{id}', { params: { path: { id: 'a' } }, signal: hangUp.signal });
      await new Promise<void>((resolve) => server.once('request', () => resolve()));
      hangUp.abort(new Error('the caller hung up'));
      await expect(asked).rejects.toThrow('the caller hung up');

      const answered = await serve(json(200, { id: 'b', seen: 'x' }));
      const plain = serviceClient<Paths>(answered.url, { fetch: sender() });
      expect(await dataOf(plain.GET('/v1/things/{id}', { params: { path: { id: 'b' } } }))).toEqual({
        id: 'b',
        seen: 'x',
      });
    });
  });

  it('sends an upload, which is no lean request, as a stream once', async () => {
    const { url, bodies } = await serve((_request, _body, response) => response.writeHead(204).end());
    const answer = await resilientFetch({ fetch: dispatcherFetch(agent) })(
      new LeanRequest(`${url}/v1/things/a/content`, {
        method: 'POST',
        body: new Blob(['part one, ', 'part two']),
      }) as unknown as Request,
    );
    expect(answer.status).toBe(204);
    expect(bodies).toEqual(['part one, part two']);
  });
});
