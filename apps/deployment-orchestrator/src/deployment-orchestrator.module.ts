import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { type DeploymentOrchestratorConfig } from './deployment-orchestrator.config';
import { InitDeploymentOrchestrator1763769600000 } from './migrations/1763769600000-init-deployment-orchestrator';
import { StrategiesRolloutsUpgrades1764400000000 } from './migrations/1764400000000-strategies-rollouts-upgrades';
import { ExchangeCommands1764500000000 } from './migrations/1764500000000-exchange-commands';
import { AllowDowngrade1764600000000 } from './migrations/1764600000000-allow-downgrade';
import { OrchestratorRuntime } from './orchestrator-runtime';
import { RolloutsController } from './rollouts/rollouts.controller';
import { Rollouts } from './rollouts/rollouts';
import { StrategiesController } from './strategies/strategies.controller';
import { Strategies } from './strategies/strategies';
import { UpgradesController } from './upgrades/upgrades.controller';
import { Upgrades } from './upgrades/upgrades';

export const DEPLOYMENT_ORCHESTRATOR_ENTITIES = [OutboxMessageEntity];
export const DEPLOYMENT_ORCHESTRATOR_MIGRATIONS = [
  InitDeploymentOrchestrator1763769600000,
  StrategiesRolloutsUpgrades1764400000000,
  ExchangeCommands1764500000000,
  AllowDowngrade1764600000000,
];

@Module({})
export class DeploymentOrchestratorModule {
  static forRoot(config: DeploymentOrchestratorConfig, logger: JsonLogger): DynamicModule {
    const part = <T>(provide: new (...args: never[]) => T, pick: (runtime: OrchestratorRuntime) => T) => ({
      provide,
      inject: [OrchestratorRuntime],
      useFactory: pick,
    });
    return {
      module: DeploymentOrchestratorModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'deployment-orchestrator',
          config,
          entities: DEPLOYMENT_ORCHESTRATOR_ENTITIES,
          migrations: DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
          streams: [STREAMS.orchestrator, STREAMS.deadLetters, STREAMS.audit],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
      ],
      controllers: [StrategiesController, RolloutsController, UpgradesController],
      providers: [
        OrchestratorRuntime,
        part(Strategies, (runtime) => runtime.strategies),
        part(Rollouts, (runtime) => runtime.rollouts),
        part(Upgrades, (runtime) => runtime.upgrades),
      ],
    };
  }
}
