/**
 * Boots a hub service in-process exactly as `main.ts` would (same module, same HTTP pipeline)
 * on a free port, against the test file's Postgres and NATS.
 */
import { createServiceApp, loadConfig, type ServiceConfig, type ServiceDefinition } from '@careen/service';
import { createLogger, NestJsonLogger, type LoggerOptions } from '@careen/telemetry';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type TestInfra } from './test-infra';

type LogDestination = NonNullable<LoggerOptions['destination']>;

export interface TestService<C extends ServiceConfig> {
  url: string;
  app: NestExpressApplication;
  config: C;
  close(): Promise<void>;
}

export async function startTestService<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  infra: TestInfra,
  env: Record<string, string> = {},
  options: { logDestination?: LogDestination } = {},
): Promise<TestService<C>> {
  const config = loadConfig(definition.configClass, {
    CAREEN_DATABASE_URL: infra.databaseUrl,
    CAREEN_NATS_URL: infra.natsUrl,
    CAREEN_LOG_LEVEL: process.env.CAREEN_TEST_LOG_LEVEL ?? 'error',
    ...env,
  });
  const logger = createLogger(definition.service, { level: config.CAREEN_LOG_LEVEL, destination: options.logDestination });
  const app = await createServiceApp(definition.module(config, logger), {
    service: definition.service,
    description: definition.description,
    logger: new NestJsonLogger(logger),
  });
  await app.listen(0, '127.0.0.1');
  return { url: await app.getUrl(), app, config, close: () => app.close() };
}
