/** `careen-console`: serves the web console (stops cleanly on SIGTERM or SIGINT). */
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { ConsoleConfig } from './console.config';
import { createConsoleServer } from './console-server';
import { ConsoleNotBuiltError } from './static-files';

function main(): void {
  const config = loadConfig(ConsoleConfig);
  const logger = createLogger('console', { level: config.CAREEN_LOG_LEVEL });
  const server = createConsoleServer({
    // dist/console/apps/console/src/main.js → dist/console/public
    root: config.CAREEN_CONSOLE_ROOT ?? join(__dirname, '..', '..', '..', 'public'),
    upstreams: {
      exchange: config.CAREEN_CONSOLE_EXCHANGE_URL,
      agbot: config.CAREEN_CONSOLE_AGBOT_URL,
      maintenance: config.CAREEN_CONSOLE_MAINTENANCE_URL,
      orchestrator: config.CAREEN_CONSOLE_ORCHESTRATOR_URL,
      notifier: config.CAREEN_CONSOLE_NOTIFIER_URL,
    },
  });
  server.listen(config.CAREEN_CONSOLE_PORT, config.CAREEN_CONSOLE_HOST, () =>
    logger.info({ port: config.CAREEN_CONSOLE_PORT }, 'console listening'),
  );
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

try {
  main();
} catch (error) {
  if (!(error instanceof ConfigError || error instanceof ConsoleNotBuiltError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
