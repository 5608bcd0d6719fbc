// Tracing starts before anything it instruments (http, pg) is loaded, so the rest is required after it.
import { startTelemetry } from '@careen/telemetry';

startTelemetry({ serviceName: 'maintenance-session', otlpEndpoint: process.env.CAREEN_OTEL_ENDPOINT });

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runService } = require('@careen/service') as typeof import('@careen/service');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { maintenanceSessionService } = require('./maintenance-session.service') as typeof import('./maintenance-session.service');

runService(maintenanceSessionService).catch((error: unknown) => {
  process.stderr.write(`maintenance-session failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
