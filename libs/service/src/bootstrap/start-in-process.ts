/**
 * Boots a hub service inside the calling process exactly as `main.ts` would (same module,
 * same HTTP pipeline) on a free loopback port: how tests and benchmarks run real services.
 */
import { createLogger, NestJsonLogger, type LoggerOptions } from '@careen/telemetry';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../config/load-config';
import { type ServiceConfig } from '../config/service-config';
import { recordAnswers } from '../http/answer-recorder';
import { createServiceApp, LISTEN_BACKLOG } from './create-service-app';
import { type ServiceDefinition } from './run-service';

type LogDestination = NonNullable<LoggerOptions['destination']>;

export interface InProcessService<C extends ServiceConfig> {
  url: string;
  app: NestFastifyApplication;
  config: C;
  /** Closes the service; calling it again waits for the same close. */
  close(): Promise<void>;
}

/** Where the service's Postgres and NATS are; `track`, when given, learns how to close it. */
export interface InProcessInfra {
  databaseUrl: string;
  natsUrl: string;
  /** Replicas for the streams the service creates (on a JetStream cluster). */
  natsStreamReplicas?: number;
  track?(close: () => Promise<void>): void;
}

export async function startServiceInProcess<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  infra: InProcessInfra,
  env: Record<string, string> = {},
  options: { logDestination?: LogDestination } = {},
): Promise<InProcessService<C>> {
  const config = loadConfig(definition.configClass, {
    CAREEN_DATABASE_URL: infra.databaseUrl,
    CAREEN_NATS_URL: infra.natsUrl,
    ...(infra.natsStreamReplicas && { CAREEN_NATS_STREAM_REPLICAS: String(infra.natsStreamReplicas) }),
    CAREEN_LOG_LEVEL: 'error',
    ...env,
  });
  const logger = createLogger(definition.service, {
    level: config.CAREEN_LOG_LEVEL,
    destination: options.logDestination,
  });
  const app = await createServiceApp(definition.module(config, logger), {
    service: definition.service,
    description: definition.description,
    logger: new NestJsonLogger(logger),
    yamlBodies: definition.yamlBodies,
  });
  // `npm test` keeps samples of every answer for the contract check (test-e2e/contract).
  const answers = process.env.CAREEN_RECORD_ANSWERS;
  if (answers) recordAnswers(app.getHttpAdapter().getInstance(), answers, definition.service);
  await app.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close());
  infra.track?.(close);
  return { url: await app.getUrl(), app, config, close };
}
