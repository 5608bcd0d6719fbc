// Tracing starts before anything it instruments (http, pg) is loaded, so the rest is required after it.
import { startTelemetry } from '@careen/telemetry';

startTelemetry({ serviceName: 'notifier', otlpEndpoint: process.env.CAREEN_OTEL_ENDPOINT });

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runService } = require('@careen/service') as typeof import('@careen/service');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { notifierService } = require('./notifier.service') as typeof import('./notifier.service');

runService(notifierService).catch((error: unknown) => {
  process.stderr.write(`notifier failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
