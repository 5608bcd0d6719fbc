/**
 * A download through a path to the real exchange that fails now and then, as a busy exchange
 * or a poor link does: every request the agent makes for the package, its description
 * included, is tried again, and the bytes that arrive are the package's.
 */
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, http, seededRandom, useTestInfra } from '@careen/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@careen/agent/src/core/clock';
import { ExchangeClient } from '@careen/agent/src/exchange/exchange-client';
import { buildPackage } from '@careen/agent/src/testing/agent-package.fixture';
import { PackageDownload } from '@careen/agent/src/upgrade/package-download';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);

/** Forwards to `target`, answering 503 to each request `fails` picks. */
function flakyPath(target: string, fails: (path: string) => boolean) {
  const seen: string[] = [];
  const server: Server = createServer((inbound, outbound) => {
    const path = inbound.url ?? '/';
    seen.push(`${inbound.method} ${path}`);
    if (fails(path)) {
      outbound.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"busy"}');
      return;
    }
    const upstream = request(
      new URL(path, target),
      { method: inbound.method, headers: inbound.headers },
      (answer) => {
        outbound.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outbound);
      },
    );
    inbound.pipe(upstream);
  });
  return {
    seen,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('package download', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let dir: string;
  let bytes: Buffer;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/edge-1', {
      auth: root,
      body: { token: 'edge-1-node-token' },
    });
    bytes = await buildPackage({ version: '2.0.0' });
    const published = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: root,
      rawBody: bytes,
      headers: { 'content-type': 'application/gzip' },
    });
    expect(published.status).toBe(201);
    dir = await mkdtemp(join(tmpdir(), 'careen-download-'));
  });

  afterAll(async () => {
    await exchange?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("retries the package's description and its content when the exchange fails them for a while", async () => {
    const failing = { description: 2, content: 1 };
    const path = flakyPath(exchange.url, (url) =>
      url === '/v1/agent-packages/2.0.0/content'
        ? failing.content-- > 0
        : url === '/v1/agent-packages/2.0.0' && failing.description-- > 0,
    );
    const url = await path.start();
    try {
      const client = new ExchangeClient(
        url,
        { org: 'acme', node: 'edge-1', token: 'edge-1-node-token' },
        systemClock,
      );
      const download = new PackageDownload(client, dir, systemClock, seededRandom(11), {
        attempts: 5,
        retry: { baseMs: 10, maxMs: 20 },
      });
      const retried: string[] = [];
      const { pkg, file } = await download.fetch('2.0.0', {
        retrying: (attempt, error) => retried.push(`${attempt}: ${error.message}`),
      });
      expect(pkg).toMatchObject({ version: '2.0.0', size: bytes.length });
      expect(await readFile(file)).toEqual(bytes);
      expect(retried).toHaveLength(3);
      expect(path.seen.filter((line) => line.startsWith('GET /v1/agent-packages/2.0.0'))).toEqual([
        'GET /v1/agent-packages/2.0.0',
        'GET /v1/agent-packages/2.0.0',
        'GET /v1/agent-packages/2.0.0',
        'GET /v1/agent-packages/2.0.0/content',
        'GET /v1/agent-packages/2.0.0/content',
      ]);
    } finally {
      await path.stop();
    }
  });

  it('gives up after its attempts, naming the last error', async () => {
    const path = flakyPath(exchange.url, (url) => url.startsWith('/v1/agent-packages/'));
    const url = await path.start();
    try {
      const client = new ExchangeClient(
        url,
        { org: 'acme', node: 'edge-1', token: 'edge-1-node-token' },
        systemClock,
      );
      const download = new PackageDownload(client, join(dir, 'again'), systemClock, seededRandom(11), {
        attempts: 2,
        retry: { baseMs: 10, maxMs: 20 },
      });
      await expect(download.fetch('2.0.0')).rejects.toThrow(
        /download of 2\.0\.0 failed after 2 tries: .*503/,
      );
    } finally {
      await path.stop();
    }
  });
});
