import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { type MaintenanceSessionConfig } from './maintenance-session.config';
import { MaintenanceRuntime } from './maintenance-runtime';
import { InitMaintenanceSession1763769600000 } from './migrations/1763769600000-init-maintenance-session';
import { MaintenanceSessions1764200000000 } from './migrations/1764200000000-sessions';
import { Constraints1765000000000 } from './migrations/1765000000000-constraints';
import { InstanceGroupRevisions1765100000000 } from './migrations/1765100000000-instance-group-revisions';
import { ConstraintsStore } from './constraints/constraints.store';
import { InstanceGroupsController } from './constraints/instance-groups.controller';
import { InstancesController } from './constraints/instances.controller';
import { MaintenanceController } from './sessions/maintenance.controller';
import { MaintenanceSessions } from './sessions/maintenance-sessions';
import { ProjectRepliesController } from './sessions/project-replies.controller';

export const MAINTENANCE_SESSION_ENTITIES = [OutboxMessageEntity];
export const MAINTENANCE_SESSION_MIGRATIONS = [
  InitMaintenanceSession1763769600000,
  MaintenanceSessions1764200000000,
  Constraints1765000000000,
  InstanceGroupRevisions1765100000000,
];

@Module({})
export class MaintenanceSessionModule {
  static forRoot(config: MaintenanceSessionConfig, logger: JsonLogger): DynamicModule {
    return {
      module: MaintenanceSessionModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'maintenance-session',
          config,
          entities: MAINTENANCE_SESSION_ENTITIES,
          migrations: MAINTENANCE_SESSION_MIGRATIONS,
          streams: [STREAMS.maintenance, STREAMS.deadLetters, STREAMS.audit],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
      ],
      controllers: [
        MaintenanceController,
        ProjectRepliesController,
        InstanceGroupsController,
        InstancesController,
      ],
      providers: [
        MaintenanceRuntime,
        ConstraintsStore,
        {
          provide: MaintenanceSessions,
          inject: [MaintenanceRuntime],
          useFactory: (runtime: MaintenanceRuntime) => runtime.sessions,
        },
      ],
    };
  }
}
