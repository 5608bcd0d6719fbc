/**
 * Test fixture run as a process of its own, the way an app's main.ts runs: telemetry starts
 * first, http is loaded after it, a little traced work happens, then shutdown flushes.
 */
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { type AddressInfo } from 'node:net';
import { withPublishSpan } from './bus-propagation';
import { startTelemetry } from './start-telemetry';

const [collectorUrl] = process.argv.slice(2);
const telemetry = startTelemetry({
  serviceName: 'careen-export-test',
  otlpEndpoint: `${collectorUrl}/`,
  untracedPaths: /^\/v1\/orgs\/[^/]+\/changes$/,
});

async function tracedWork(): Promise<void> {
  const http = await import('node:http');
  const get = (url: string) =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, (response) => {
          response.resume();
          response.on('end', resolve);
        })
        .on('error', reject);
    });
  await get(`${collectorUrl}/probe`);
  // Requests to a server of its own: one path it traces, one it was told to start no trace on,
  // asked once alone and once within a caller's trace.
  const server = http.createServer((_request, response) => response.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await get(`http://127.0.0.1:${port}/v1/orgs/o/changes/head`);
  const poll = `http://127.0.0.1:${port}/v1/orgs/o/changes?since=0&wait=0`;
  // Sent untraced, as an agent sends it: no traceparent header.
  await context.with(suppressTracing(context.active()), () => get(poll));
  await get(poll);
  await new Promise((resolve) => server.close(resolve));
  await withPublishSpan('careen.export.test', () => undefined);
  await telemetry.shutdown();
}

tracedWork().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
