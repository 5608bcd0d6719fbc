/**
 * Test fixture run as a process of its own, the way an app's main.ts runs: telemetry starts
 * first, http is loaded after it, a little traced work happens, then shutdown flushes.
 */
import { withPublishSpan } from './bus-propagation';
import { startTelemetry } from './start-telemetry';

const [collectorUrl] = process.argv.slice(2);
const telemetry = startTelemetry({ serviceName: 'careen-export-test', otlpEndpoint: `${collectorUrl}/` });

async function tracedWork(): Promise<void> {
  const http = await import('node:http');
  await new Promise<void>((resolve, reject) => {
    http
      .get(`${collectorUrl}/probe`, (response) => {
        response.resume();
        response.on('end', resolve);
      })
      .on('error', reject);
  });
  await withPublishSpan('careen.export.test', () => undefined);
  await telemetry.shutdown();
}

tracedWork().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
