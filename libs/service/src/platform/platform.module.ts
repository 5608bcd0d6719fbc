/**
 * What every hub service shares: its config, its own schema (migrated at start unless a Job
 * does it), the bus with its streams, the publisher, the outbox writer and relay, the inbox
 * of processed messages, health, readiness and metrics.
 */
import { actingHeaders } from '../audit/acting-context';
import { AuditTrail } from '../audit/audit-trail';
import {
  connectBus,
  ensureStreams,
  EventPublisher,
  OutboxRelay,
  type BusConnection,
  type StreamSpec,
} from '@careen/bus';
import {
  createServiceDataSource,
  OutboxWriter,
  ProcessedMessages,
  runServiceMigrations,
} from '@careen/persistence';
import { injectTraceContext, recordCarrier, type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import { DataSource, type EntitySchema, type MixedList } from 'typeorm';
import { type ServiceConfig } from '../config/service-config';
import { WhoAmIController } from '../auth/whoami.controller';
import { HealthController } from '../health/health.controller';
import { DatabaseProbe } from '../health/database-probe';
import { READINESS_CHECKS, type ReadinessCheck } from '../health/readiness';
import { MetricsController } from '../metrics/metrics.controller';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { PlatformMetrics } from '../metrics/platform-metrics';
import { PlatformLifecycle } from './platform.lifecycle';
import { BUS, SERVICE_CONFIG, SERVICE_LOGGER, SERVICE_NAME } from './platform.tokens';

export interface PlatformOptions<C extends ServiceConfig> {
  /** Service name; also its schema (dashes become underscores). */
  service: string;
  config: C;
  logger: JsonLogger;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  streams: readonly StreamSpec[];
  /** Run the outbox relay in this process (services that publish through the outbox). */
  relayOutbox?: boolean;
}

export function schemaOfService(service: string): string {
  return service.replace(/-/g, '_');
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot<C extends ServiceConfig>(options: PlatformOptions<C>): DynamicModule {
    const schema = schemaOfService(options.service);
    const providers: Provider[] = [
      { provide: SERVICE_NAME, useValue: options.service },
      { provide: SERVICE_CONFIG, useValue: options.config },
      { provide: SERVICE_LOGGER, useValue: options.logger },
      {
        provide: DataSource,
        useFactory: async () => {
          const dataSource = createServiceDataSource({
            url: options.config.CAREEN_DATABASE_URL,
            schema,
            entities: options.entities,
            migrations: options.migrations,
            applicationName: options.service,
            poolSize: options.config.CAREEN_DATABASE_POOL_SIZE,
            poolWaitMs: options.config.CAREEN_DATABASE_POOL_WAIT_MS,
          });
          await dataSource.initialize();
          if (options.config.CAREEN_MIGRATE) await runServiceMigrations(dataSource);
          return dataSource;
        },
      },
      {
        provide: BUS,
        useFactory: async () => {
          const bus = await connectBus({
            url: options.config.CAREEN_NATS_URL,
            name: options.service,
            logger: options.logger,
            credsFile: options.config.CAREEN_NATS_CREDS,
          });
          await ensureStreams(
            bus.jsm,
            options.streams.map((stream) => ({
              ...stream,
              replicas: options.config.CAREEN_NATS_STREAM_REPLICAS,
            })),
          );
          return bus;
        },
      },
      {
        provide: EventPublisher,
        inject: [BUS],
        useFactory: (bus: BusConnection) => new EventPublisher(bus.js, `careen/${options.service}`),
      },
      {
        provide: OutboxWriter,
        useFactory: () =>
          new OutboxWriter(schema, () => ({ ...currentTraceHeaders(), ...actingHeaders(options.service) })),
      },
      AuditTrail,
      {
        provide: ProcessedMessages,
        inject: [DataSource],
        useFactory: (dataSource: DataSource) => new ProcessedMessages(dataSource),
      },
      {
        provide: OutboxRelay,
        inject: [EventPublisher, MetricsRegistry],
        useFactory: (publisher: EventPublisher, metrics: MetricsRegistry) => {
          if (!options.relayOutbox) return undefined;
          const relay = new OutboxRelay({
            databaseUrl: options.config.CAREEN_DATABASE_URL,
            schema,
            publisher,
            logger: options.logger,
          });
          metrics.trackLeadership(relay);
          return relay;
        },
      },
      {
        provide: DatabaseProbe,
        useFactory: () => new DatabaseProbe(options.config.CAREEN_DATABASE_URL, options.service),
      },
      {
        provide: READINESS_CHECKS,
        inject: [DatabaseProbe, BUS],
        useFactory: (database: DatabaseProbe, bus: BusConnection): ReadinessCheck[] => [
          database,
          {
            name: 'bus',
            check: async () => {
              if (!bus.isConnected()) throw new Error('disconnected');
              await bus.nc.flush();
            },
          },
        ],
      },
      { provide: MetricsRegistry, useValue: new MetricsRegistry(options.service) },
      {
        provide: PlatformMetrics,
        inject: [MetricsRegistry, DataSource, BUS],
        useFactory: (metrics: MetricsRegistry, dataSource: DataSource, bus: BusConnection) =>
          new PlatformMetrics(metrics, {
            dataSource,
            bus,
            outboxSchema: options.relayOutbox ? schema : undefined,
          }),
      },
      {
        provide: PlatformLifecycle,
        inject: [DataSource, BUS, OutboxRelay, DatabaseProbe],
        useFactory: (
          dataSource: DataSource,
          bus: BusConnection,
          relay: OutboxRelay | undefined,
          probe: DatabaseProbe,
        ) => new PlatformLifecycle(dataSource, bus, relay, probe),
      },
    ];
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController, WhoAmIController],
      providers,
      exports: [
        SERVICE_NAME,
        SERVICE_CONFIG,
        SERVICE_LOGGER,
        DataSource,
        BUS,
        EventPublisher,
        OutboxWriter,
        AuditTrail,
        ProcessedMessages,
        OutboxRelay,
        MetricsRegistry,
      ],
    };
  }
}

function currentTraceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  injectTraceContext(recordCarrier(headers));
  return headers;
}
