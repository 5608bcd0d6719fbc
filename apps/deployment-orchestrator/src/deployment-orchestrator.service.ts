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
    'Will run deployment strategies, rollouts and single-node upgrades with history. Today it only boots: health, readiness, metrics and whoami.',
  configClass: DeploymentOrchestratorConfig,
  port: (config) => config.CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT,
  module: (config, logger) => DeploymentOrchestratorModule.forRoot(config, logger),
  entities: DEPLOYMENT_ORCHESTRATOR_ENTITIES,
  migrations: DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
};
