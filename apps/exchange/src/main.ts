// Tracing starts before anything it instruments (http, pg) is loaded, so the service is required after it.
import { startTelemetry } from '@careen/telemetry';

startTelemetry({
  serviceName: 'exchange',
  otlpEndpoint: process.env.CAREEN_OTEL_ENDPOINT,
  // The change feed's long poll is every agent's heartbeat, one every half minute per node: a
  // trace of its own for each would bury real requests, and starting its span was a tenth of the
  // poll's CPU. A poll sent within a caller's trace is still traced.
  untracedPaths: /^\/v1\/orgs\/[^/]+\/changes$/,
});
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./serve');
