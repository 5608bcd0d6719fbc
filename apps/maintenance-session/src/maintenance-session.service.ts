import { type ServiceDefinition } from '@careen/service';
import { MaintenanceSessionConfig } from './maintenance-session.config';
import {
  MAINTENANCE_SESSION_ENTITIES,
  MAINTENANCE_SESSION_MIGRATIONS,
  MaintenanceSessionModule,
} from './maintenance-session.module';

export const maintenanceSessionService: ServiceDefinition<MaintenanceSessionConfig> = {
  service: 'maintenance-session',
  description:
    'Runs planned maintenance sessions (OPNFV Doctor / OpenStack Fenix): project and admin state events, VNF-manager replies, HA-group-safe host maintenance.',
  configClass: MaintenanceSessionConfig,
  port: (config) => config.CAREEN_MAINTENANCE_SESSION_PORT,
  module: (config, logger) => MaintenanceSessionModule.forRoot(config, logger),
  entities: MAINTENANCE_SESSION_ENTITIES,
  migrations: MAINTENANCE_SESSION_MIGRATIONS,
};
