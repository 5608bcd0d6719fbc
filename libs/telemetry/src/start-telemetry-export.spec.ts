import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
const TRACED_PROCESS = join(__dirname, 'traced-process.fixture.ts');

interface ReceivedRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
}

interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** A stand-in OTLP/HTTP collector that records every request it gets. */
async function startCollector(): Promise<{ server: Server; url: string; received: ReceivedRequest[] }> {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, received };
}

/**
 * The exporter loads http through a dynamic import, which jest's module sandbox refuses, so the
 * SDK runs in a real process started exactly like an app.
 */
describe('startTelemetry with an OTLP endpoint', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;

  beforeAll(async () => {
    collector = await startCollector();
  });
  afterAll(() => new Promise((closed) => collector.server.close(closed)));

  it('traces outgoing http and bus publishes and posts them to <endpoint>/v1/traces on shutdown', async () => {
    await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', TRACED_PROCESS, collector.url], {
      cwd: REPO_ROOT,
      env: { ...process.env, TS_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json') },
    });

    const probe = collector.received.find((r) => r.url === '/probe');
    const traceparent = String(probe?.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, probeTraceId, probeSpanId] = traceparent.split('-');

    const exports = collector.received.filter((r) => r.method === 'POST' && r.url === '/v1/traces');
    expect(exports.length).toBeGreaterThan(0);
    const resourceSpans = exports.flatMap((r) => (JSON.parse(r.body) as OtlpTraces).resourceSpans);
    const serviceNames = resourceSpans.flatMap((rs) =>
      rs.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue),
    );
    expect(new Set(serviceNames)).toEqual(new Set(['careen-export-test']));
    const spans = resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    expect(spans).toContainEqual(expect.objectContaining({ traceId: probeTraceId, spanId: probeSpanId }));
    expect(spans).toContainEqual(expect.objectContaining({ name: 'publish careen.export.test' }));
  });
});
