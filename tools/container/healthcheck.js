#!/usr/bin/env node
/**
 * The image's HEALTHCHECK: exit 0 when the hub service (or the console) named by APP answers 200 on /healthz at
 * its port (CAREEN_<APP>_PORT, else its default), else 1. Apps that serve no HTTP (agent, cli,
 * vnf-manager, nats-auth) have nothing to ask: the container is healthy while it runs.
 * Plain CommonJS with nothing but Node.
 */
'use strict';

/** The hub services' and the console's default ports, as their configs set them. */
const DEFAULT_PORTS = {
  exchange: 8080,
  agbot: 8081,
  'maintenance-session': 8082,
  'deployment-orchestrator': 8083,
  notifier: 8084,
  console: 8085,
};
const TIMEOUT_MS = 3_000;

const app = process.env.APP ?? '';
if (!(app in DEFAULT_PORTS)) process.exit(0);
const port = process.env[`CAREEN_${app.toUpperCase().replace(/-/g, '_')}_PORT`] ?? DEFAULT_PORTS[app];
fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) }).then(
  (response) => process.exit(response.status === 200 ? 0 : 1),
  () => process.exit(1),
);
