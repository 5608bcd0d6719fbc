import { startOtlpCollector, type OtlpCollector } from '@careen/testing';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
const TRACED_PROCESS = join(__dirname, 'traced-process.fixture.ts');

/**
 * The exporter loads http through a dynamic import, which jest's module sandbox refuses, so the
 * SDK runs in a real process started exactly like an app.
 */
describe('startTelemetry with an OTLP endpoint', () => {
  let collector: OtlpCollector;

  beforeAll(async () => {
    collector = await startOtlpCollector();
    await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', TRACED_PROCESS, collector.url], {
      cwd: REPO_ROOT,
      env: { ...process.env, TS_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json') },
    });
  });
  afterAll(() => collector.close());

  it('traces outgoing http and bus publishes and posts them to <endpoint>/v1/traces on shutdown', () => {
    const probe = collector.requests.find((r) => r.url === '/probe');
    const traceparent = String(probe?.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, probeTraceId, probeSpanId] = traceparent.split('-');

    const exports = collector.requests.filter((r) => r.method === 'POST' && r.url === '/v1/traces');
    expect(exports.length).toBeGreaterThan(0);
    const spans = collector.spans();
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['careen-export-test']));
    expect(spans).toContainEqual(expect.objectContaining({ traceId: probeTraceId, spanId: probeSpanId }));
    expect(spans).toContainEqual(expect.objectContaining({ name: 'publish careen.export.test' }));
  });

  it('starts no trace for a request on a path it was told to, but traces one sent within a trace', () => {
    const spans = collector.spans();
    const served = spans
      .filter((span) => span.kind === 2)
      .map((span) => ({
        path: span.attributes?.find((attribute) => attribute.key === 'url.path')?.value.stringValue,
        caller: spans.find((candidate) => candidate.spanId === span.parentSpanId)?.kind,
      }));
    // The poll sent without a traceparent left no span; the one sent from a client span did.
    expect(served).toEqual([
      { path: '/v1/orgs/o/changes/head', caller: 3 },
      { path: '/v1/orgs/o/changes', caller: 3 },
    ]);
  });
});
