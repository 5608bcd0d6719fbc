// Tracing starts before anything it instruments (http, pg) is loaded, so the service is required after it.
import { startTelemetry } from '@careen/telemetry';

startTelemetry({ serviceName: 'exchange', otlpEndpoint: process.env.CAREEN_OTEL_ENDPOINT });
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./serve');
