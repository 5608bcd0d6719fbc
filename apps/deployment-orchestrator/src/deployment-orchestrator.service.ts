import { type ServiceDefinition } from '@careen/service';
import { DeploymentOrchestratorConfig } from './deployment-orchestrator.config';
import {
  DEPLOYMENT_ORCHESTRATOR_ENTITIES,
  DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
  DeploymentOrchestratorModule,
} from './deployment-orchestrator.module';

export const deploymentOrchestratorService: ServiceDefinition<DeploymentOrchestratorConfig> = {
  service: 'deployment-orchestrator',
  description:
    "Runs deployment strategies (Airship Shipyard's DeploymentStrategy) through the fleet group by group, and single-node agent upgrades with their history (Trove).",
  configClass: DeploymentOrchestratorConfig,
  port: (config) => config.CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT,
  module: (config, logger) => DeploymentOrchestratorModule.forRoot(config, logger),
  entities: DEPLOYMENT_ORCHESTRATOR_ENTITIES,
  migrations: DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
  yamlBodies: true,
};
