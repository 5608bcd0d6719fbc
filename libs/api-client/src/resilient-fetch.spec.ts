import { ApiError, dataOf } from './api-error';
import { answeringServers, json, type Paths, refusal } from './answering-server.fixtures';
import { resilientFetch, ServiceUnreachable } from './resilient-fetch';
import { serviceClient } from './service-client';

describe('the service clients', () => {
  const serve = answeringServers();

  it('keeps the path of the base URL, as behind an Ingress that routes by prefix', async () => {
    const { url, requests } = await serve((request, _body, response) =>
      json(200, { id: 'a', seen: request.url })(request, '', response),
    );
    const client = serviceClient<Paths>(`${url}/exchange/`);
    expect(await dataOf(client.GET('/v1/things/{id}', { params: { path: { id: 'a b' } } }))).toEqual({
      id: 'a',
      seen: '/exchange/v1/things/a%20b',
    });
    expect(requests).toHaveLength(1);
  });

  it('tries a GET again after a 503 and a reset, and gives up on a 4xx at once', async () => {
    const { url, requests } = await serve(
      refusal(503, 'SERVICE_UNAVAILABLE'),
      (request) => request.socket.destroy(),
      json(200, { id: 'a', seen: 'third' }),
      refusal(404, 'THING_NOT_FOUND'),
    );
    const client = serviceClient<Paths>(url, { backoffMs: 1 });
    expect(await dataOf(client.GET('/v1/things/{id}', { params: { path: { id: 'a' } } }))).toMatchObject({
      seen: 'third',
    });
    const missing = await dataOf(client.GET('/v1/things/{id}', { params: { path: { id: 'b' } } })).catch(
      (error: unknown) => error,
    );
    expect(missing).toBeInstanceOf(ApiError);
    expect([(missing as ApiError).status, (missing as ApiError).code]).toEqual([404, 'THING_NOT_FOUND']);
    expect(requests).toHaveLength(4);
  });

  it('sends a POST once unless the caller says it may be repeated', async () => {
    const once = await serve(refusal(503, 'SERVICE_UNAVAILABLE'), json(201, { note: 'second' }));
    const post = (url: string, idempotent: boolean) =>
      dataOf(
        serviceClient<Paths>(url, { backoffMs: 1, idempotent }).POST('/v1/things/{id}', {
          params: { path: { id: 'a' } },
          body: { note: 'n' },
        }),
      );
    await expect(post(once.url, false)).rejects.toMatchObject({ status: 503 });
    expect(once.requests).toHaveLength(1);

    const repeated = await serve(refusal(503, 'SERVICE_UNAVAILABLE'), json(201, { note: 'second' }));
    expect(await post(repeated.url, true)).toEqual({ note: 'second' });
    expect(repeated.requests).toHaveLength(2);
  });

  it('asks for a new token once after a 401, and sends it', async () => {
    const { url, requests } = await serve(refusal(401, 'TOKEN_EXPIRED'), json(200, { id: 'a', seen: 'ok' }));
    let issued = 0;
    const auth = { bearer: async () => `token-${issued}`, invalidate: () => void issued++ };
    const client = serviceClient<Paths>(url, { auth, retries: 0 });
    expect(await dataOf(client.GET('/v1/things/{id}', { params: { path: { id: 'a' } } }))).toMatchObject({
      seen: 'ok',
    });
    expect(requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-0',
      'Bearer token-1',
    ]);
  });

  it("sends the policy's headers with every attempt, unless the request sets them itself", async () => {
    const { url, requests } = await serve(
      refusal(503, 'SERVICE_UNAVAILABLE'),
      json(200, { id: 'a', seen: 'ok' }),
      json(200, { id: 'b', seen: 'ok' }),
    );
    const client = serviceClient<Paths>(url, { backoffMs: 1, headers: { authorization: 'Basic c3RvcmVk' } });
    await dataOf(client.GET('/v1/things/{id}', { params: { path: { id: 'a' } } }));
    await dataOf(
      client.GET('/v1/things/{id}', {
        params: { path: { id: 'b' } },
        headers: { authorization: 'Bearer own' },
      }),
    );
    expect(requests.map((request) => request.headers.authorization)).toEqual([
      'Basic c3RvcmVk',
      'Basic c3RvcmVk',
      'Bearer own',
    ]);
  });

  it('times out waiting for the answer, not while its body streams', async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write('first ');
      setTimeout(() => response.end('last'), 150);
    });
    const answer = await resilientFetch({ timeoutMs: 50, retries: 0 })(
      new Request(`${url}/v1/things/a/content`),
    );
    expect(await answer.text()).toBe('first last');
  });

  it('gives up a JSON answer that stalls halfway, as it gives up one that never began', async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id": "a", ');
    });
    const answer = await resilientFetch({ timeoutMs: 100, retries: 0 })(new Request(`${url}/v1/things/a`));
    await expect(answer.json()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('says why there was no answer: refused, or none within the timeout', async () => {
    const { url, server } = await serve(() => undefined);
    const slow = resilientFetch({ timeoutMs: 50, retries: 0 });
    await expect(slow(new Request(`${url}/v1/things/a`))).rejects.toThrow(
      new ServiceUnreachable(`${url}/v1/things/a`, 'no answer within 0s'),
    );
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await expect(resilientFetch({ retries: 0 })(new Request(`${url}/v1/things/a`))).rejects.toMatchObject({
      reason: 'ECONNREFUSED',
    });
  });
});
