import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { type DeploymentOrchestratorConfig } from './deployment-orchestrator.config';
import { InitDeploymentOrchestrator1763769600000 } from './migrations/1763769600000-init-deployment-orchestrator';

export const DEPLOYMENT_ORCHESTRATOR_ENTITIES = [OutboxMessageEntity];
export const DEPLOYMENT_ORCHESTRATOR_MIGRATIONS = [InitDeploymentOrchestrator1763769600000];

@Module({})
export class DeploymentOrchestratorModule {
  static forRoot(config: DeploymentOrchestratorConfig, logger: JsonLogger): DynamicModule {
    return {
      module: DeploymentOrchestratorModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'deployment-orchestrator',
          config,
          entities: DEPLOYMENT_ORCHESTRATOR_ENTITIES,
          migrations: DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
          streams: [STREAMS.changes, STREAMS.deadLetters],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
      ],
    };
  }
}
