import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConsoleServer } from './console-server';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw request: the path is sent exactly as given (no URL normalization on the way). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (answer) => {
      let text = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (text += chunk));
      answer.on('end', () =>
        resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: text }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('the console server', () => {
  let folder: string;
  let root: string;
  let upstream: Server;
  let upstreamPort: number;
  let server: Server;
  let port: number;
  const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const streamClosed: Promise<void>[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'careen-console-'));
    root = join(folder, 'public');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>Careen console</title>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log("app")');
    writeFileSync(join(folder, 'secret.txt'), 'not for the browser');

    // A service: echoes what reached it, and streams events on /v1/stream until the client goes.
    upstream = createServer((incoming, answer) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () => {
        seen.push({ method: incoming.method, url: incoming.url, headers: incoming.headers, body });
        if (incoming.url?.startsWith('/v1/stream')) {
          answer.writeHead(200, { 'content-type': 'text/event-stream' });
          answer.write('id: 1\ndata: first\n\n');
          streamClosed.push(once(answer, 'close').then(() => undefined));
          return;
        }
        if (incoming.url === '/v1/refuse') {
          answer.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
          answer.end('{"statusCode":401}');
          return;
        }
        answer.writeHead(200, { 'content-type': 'application/json', connection: 'close', 'x-kept': 'yes' });
        answer.end(JSON.stringify({ echoed: true }));
      });
    });
    upstreamPort = await listen(upstream);
    server = createConsoleServer({
      root,
      // The maintenance service is not configured, as where the Ingress routes it.
      upstreams: {
        exchange: `http://127.0.0.1:${upstreamPort}`,
        agbot: 'http://127.0.0.1:1',
        maintenance: undefined,
      },
    });
    port = await listen(server);
  });

  afterAll(async () => {
    server.closeAllConnections();
    upstream.closeAllConnections();
    await Promise.all([
      new Promise((done) => server.close(done)),
      new Promise((done) => upstream.close(done)),
    ]);
    rmSync(folder, { recursive: true, force: true });
  });

  it("serves the app's page, revalidated, with a policy that keeps scripts and connections to this origin", async () => {
    const page = await send(port, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Careen console</title>');
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('serves built assets as immutable, and the page for any other path of the app', async () => {
    const asset = await send(port, 'GET', '/assets/index-abc123.js');
    expect([asset.status, asset.body, asset.headers['content-type'], asset.headers['cache-control']]).toEqual(
      [200, 'console.log("app")', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
    );
    for (const path of ['/nodes/edge-1', '/assets/missing.js', '/%E0%A4%A', '/index.html?x=1']) {
      const answer = await send(port, 'GET', path);
      expect([path, answer.status, answer.body]).toEqual([
        path,
        200,
        '<!doctype html><title>Careen console</title>',
      ]);
    }
    const head = await send(port, 'HEAD', '/');
    expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', '44']);
  });

  it('never reads a file outside its folder, however the path is written', async () => {
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/a%00b',
    ]) {
      const answer = await send(port, 'GET', path);
      expect([path, answer.status, answer.body]).toEqual([
        path,
        200,
        '<!doctype html><title>Careen console</title>',
      ]);
    }
  });

  it('answers anything but a read of its own paths with 405', async () => {
    const answer = await send(port, 'POST', '/v1/orgs', { 'content-type': 'application/json' }, '{}');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(answer.body)).toMatchObject({
      statusCode: 405,
      details: { code: 'METHOD_NOT_ALLOWED' },
    });
  });

  it("passes a service's requests on without its prefix, with the caller's credentials and body, and its answers back", async () => {
    seen.length = 0;
    const answer = await send(
      port,
      'PUT',
      '/exchange/v1/orgs/demo/nodes/edge-1?wait=5',
      {
        authorization: 'Bearer token-of-the-caller',
        'content-type': 'application/json',
        connection: 'keep-alive, x-hop',
        'x-hop': 'only for this connection',
      },
      '{"name":"edge"}',
    );
    expect([answer.status, answer.body, answer.headers['x-kept']]).toEqual([200, '{"echoed":true}', 'yes']);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'PUT',
      url: '/v1/orgs/demo/nodes/edge-1?wait=5',
      body: '{"name":"edge"}',
      headers: { authorization: 'Bearer token-of-the-caller', 'x-forwarded-for': '127.0.0.1' },
    });
    expect(seen[0]!.headers['x-hop']).toBeUndefined();

    const refused = await send(port, 'GET', '/exchange/v1/refuse');
    expect([refused.status, refused.headers['www-authenticate']]).toEqual([401, 'Bearer']);
  });

  it('streams event streams through as they come, and ends the service request when the browser goes', async () => {
    const firstEvent = new Promise<string>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port, path: '/exchange/v1/stream' }, (answer) => {
        answer.setEncoding('utf8');
        answer.once('data', (chunk: string) => {
          resolve(chunk);
          outgoing.destroy();
        });
      });
      outgoing.on('error', (error) => {
        if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
      });
      outgoing.end();
    });
    expect(await firstEvent).toBe('id: 1\ndata: first\n\n');
    await streamClosed[0];
  });

  it("keeps a service's metrics off its origin: 404, and the service is not asked", async () => {
    seen.length = 0;
    for (const path of ['/exchange/metrics', '/exchange/metrics?name=x', '/exchange/metrics/']) {
      const answer = await send(port, 'GET', path);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({
        message: "the exchange service's metrics are not served here; scrape the service itself",
      });
    }
    expect(seen).toEqual([]);
    expect((await send(port, 'GET', '/exchange/v1/metrics-of-mine')).status).toBe(200);
  });

  it('answers 502 naming the service when it cannot be reached, or is not routed here', async () => {
    const unreachable = await send(port, 'GET', '/agbot/v1/orgs/demo/upgrades');
    expect(unreachable.status).toBe(502);
    expect(JSON.parse(unreachable.body)).toMatchObject({
      details: { code: 'BAD_GATEWAY', service: 'agbot' },
      message: expect.stringContaining('the agbot service did not answer'),
    });
    const unrouted = await send(port, 'GET', '/maintenance/v1/maintenance');
    expect(unrouted.status).toBe(502);
    expect(JSON.parse(unrouted.body)).toMatchObject({
      details: { service: 'maintenance-session' },
      message: expect.stringContaining('route /maintenance/ to it'),
    });
  });

  it('refuses to start without a built app', () => {
    expect(() => createConsoleServer({ root: folder, upstreams: {} })).toThrow(/not built: no index.html/);
  });
});
