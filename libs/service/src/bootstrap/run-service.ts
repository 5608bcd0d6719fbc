/**
 * The entry point of every hub service: `main.ts` serves; `main.ts migrate` only brings the
 * schema up to date and exits (a Kubernetes Job's job). Configuration problems end the
 * process with the list of bad variables and no stack trace.
 */
import { createServiceDataSource, runServiceMigrations } from '@careen/persistence';
import { createLogger, NestJsonLogger, type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, type Type } from '@nestjs/common';
import { type EntitySchema, type MixedList } from 'typeorm';
import { ConfigError, loadConfig } from '../config/load-config';
import { type ServiceConfig } from '../config/service-config';
import { schemaOfService } from '../platform/platform.module';
import { createServiceApp, LISTEN_BACKLOG } from './create-service-app';

export interface ServiceDefinition<C extends ServiceConfig> {
  service: string;
  description: string;
  configClass: new () => C;
  port: (config: C) => number;
  module: (config: C, logger: JsonLogger) => Type | DynamicModule;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  /** Whether its routes take YAML bodies (as text) besides JSON. */
  yamlBodies?: boolean;
}

export async function runService<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  argv = process.argv.slice(2),
): Promise<void> {
  let config: C;
  try {
    config = loadConfig(definition.configClass);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${definition.service}: ${error.message}\n`);
    process.exit(78);
  }
  const logger = createLogger(definition.service, { level: config.CAREEN_LOG_LEVEL });
  if (argv[0] === 'migrate') {
    const dataSource = createServiceDataSource({
      url: config.CAREEN_DATABASE_URL,
      schema: schemaOfService(definition.service),
      entities: definition.entities,
      migrations: definition.migrations,
      applicationName: `${definition.service}-migrate`,
    });
    await dataSource.initialize();
    const applied = await runServiceMigrations(dataSource);
    await dataSource.destroy();
    logger.info({ applied }, applied.length ? 'migrations applied' : 'schema already up to date');
    return;
  }
  const app = await createServiceApp(definition.module(config, logger), {
    service: definition.service,
    description: definition.description,
    logger: new NestJsonLogger(logger),
    yamlBodies: definition.yamlBodies,
  });
  const port = definition.port(config);
  await app.listen({ port, host: '0.0.0.0', backlog: LISTEN_BACKLOG });
  logger.info({ port, docs: `/docs` }, `${definition.service} listening`);
  stopOnSignal(async () => {
    logger.info({}, `${definition.service} draining`);
    await app.close();
    logger.info({}, `${definition.service} stopped`);
  });
}

/**
 * SIGTERM or SIGINT closes the app (HTTP server, relay, consumers, bus drain, database) and
 * exits 0; a second signal, or a drain that hangs past the grace period, exits at once.
 */
function stopOnSignal(close: () => Promise<void>, graceMs = 25_000): void {
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => process.exit(1), graceMs).unref();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Runs the service as the process's main program: a start-up failure ends it with exit 1. */
export function launchService<C extends ServiceConfig>(definition: ServiceDefinition<C>): void {
  runService(definition).catch((error: unknown) => {
    process.stderr.write(
      `${definition.service} failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
