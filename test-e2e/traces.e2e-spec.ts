/**
 * Traces as an operator's collector receives them: the exchange and the agbot run as processes
 * of their own with CAREEN_OTEL_ENDPOINT pointing at an OTLP/HTTP receiver in the test, and one
 * request that crosses HTTP, the exchange's outbox, NATS and the agbot's consumer arrives as one
 * trace: the exchange's server span, its relay's publish span below it, and the agbot's consume
 * span as the publish span's child.
 */
import { freePort, stopChild } from '@careen/devstack';
import {
  eventually,
  startOtlpCollector,
  useTestInfra,
  type CollectedSpan,
  type OtlpCollector,
} from '@careen/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..');
const ROOT_PASSWORD = 'root-password-1';
/** OTLP's span kinds. */
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

describe('traces', () => {
  const infra = useTestInfra();
  const children: ChildProcess[] = [];
  let collector: OtlpCollector;

  beforeAll(async () => {
    collector = await startOtlpCollector();
  });

  afterAll(async () => {
    for (const child of children) await stopChild(child);
    await collector.close();
  });

  const start = async (app: string, env: Record<string, string>) => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(REPO_ROOT, 'apps', app, 'src', 'main.ts')],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          CAREEN_DATABASE_URL: infra.databaseUrl,
          CAREEN_NATS_URL: infra.natsUrl,
          CAREEN_OTEL_ENDPOINT: collector.url,
          CAREEN_LOG_LEVEL: 'error',
          [`CAREEN_${app.toUpperCase()}_PORT`]: String(port),
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await eventually(
      async () => expect((await fetch(`${url}/readyz`).catch(() => undefined))?.status).toBe(200),
      {
        timeoutMs: 60_000,
      },
    );
    return url;
  };

  let exchange: string;
  beforeAll(async () => {
    exchange = await start('exchange', { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await start('agbot', { CAREEN_EXCHANGE_URL: exchange, CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD });
  });
  const rootAuth = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;

  it('follows a change from the request that made it, through the outbox and NATS, into the agbot', async () => {
    // The caller's own trace context, so that its trace is found among the others.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const created = await fetch(`${exchange}/v1/orgs`, {
      method: 'POST',
      headers: {
        authorization: rootAuth,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({ id: 'traced' }),
    });
    expect(created.status).toBe(201);

    const inTrace = () => collector.spans().filter((span) => span.traceId === traceId);
    const find = (service: string, kind: number, name?: string) =>
      inTrace().find(
        (span) => span.service === service && span.kind === kind && (!name || span.name === name),
      );
    await eventually(() => expect(find('agbot', CONSUMER)).toBeDefined(), { timeoutMs: 30_000 });

    const server = find('exchange', SERVER)!;
    const publish = find('exchange', PRODUCER, 'publish careen.changes.traced.org.traced')!;
    const consume = find('agbot', CONSUMER, 'process careen.changes.traced.org.traced')!;
    expect({ server: server?.parentSpanId, consume: consume?.parentSpanId }).toEqual({
      server: callerSpanId,
      consume: publish?.spanId,
    });
    // The publish span lies below the server span, however many spans are in between.
    const ancestors: string[] = [];
    for (let at: CollectedSpan | undefined = publish; at?.parentSpanId;) {
      ancestors.push(at.parentSpanId);
      at = inTrace().find((span) => span.spanId === at!.parentSpanId);
    }
    expect(ancestors).toContain(server.spanId);
  });

  it("starts no trace of its own for a poll of the change feed, and traces one sent in a caller's trace", async () => {
    const poll = (headers: Record<string, string>) =>
      fetch(`${exchange}/v1/orgs/root/changes?since=0&wait=0`, {
        headers: { authorization: rootAuth, ...headers },
      }).then((response) => expect(response.status).toBe(200));
    const traceId = randomBytes(16).toString('hex');
    // As an agent polls: no trace context.
    await poll({});
    await poll({ traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });

    // Spans are exported in the order they end: once the second poll's is in, the first's would be.
    const served = () =>
      collector
        .spans()
        .filter(
          (span) =>
            span.service === 'exchange' &&
            span.kind === SERVER &&
            span.attributes?.some((attribute) => attribute.value.stringValue === '/v1/orgs/root/changes'),
        );
    await eventually(() => expect(served().some((span) => span.traceId === traceId)).toBe(true), {
      timeoutMs: 30_000,
    });
    expect(served().map((span) => span.traceId)).toEqual([traceId]);
  });
});
