/**
 * Puts the orchestrator's parts together: strategies, rollouts and upgrades (any replica takes
 * requests) and the driver (only the elected replica runs it), woken when agents answer.
 */
import { type Agbot } from '@careen/api-client';
import { type BusConnection } from '@careen/bus';
import { OutboxWriter } from '@careen/persistence';
import {
  AuditTrail,
  BUS,
  HubRuntime,
  MetricsRegistry,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { wakeOnAnswers } from './driver/answer-wakeup';
import { type DeploymentOrchestratorConfig } from './deployment-orchestrator.config';
import { OrchestratorDriver } from './driver/orchestrator-driver';
import { FleetGateway } from './fleet/fleet-gateway';
import { SoakGateway } from './fleet/soak-gateway';
import { OrchestratorMetrics } from './orchestrator-metrics';
import { RolloutDriver } from './rollouts/rollout-driver';
import { RolloutEvents } from './rollouts/rollout-events';
import { RolloutStore } from './rollouts/rollout-store';
import { Rollouts } from './rollouts/rollouts';
import { Strategies } from './strategies/strategies';
import { StrategyStore } from './strategies/strategy-store';
import { UpgradeDriver } from './upgrades/upgrade-driver';
import { UpgradeStore } from './upgrades/upgrade-store';
import { Upgrades } from './upgrades/upgrades';

@Injectable()
export class OrchestratorRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly strategies: Strategies;
  readonly rollouts: Rollouts;
  readonly upgrades: Upgrades;
  private readonly runtime: HubRuntime;

  constructor(
    @Inject(SERVICE_CONFIG) config: DeploymentOrchestratorConfig,
    @Inject(SERVICE_LOGGER) logger: JsonLogger,
    @Inject(BUS) bus: BusConnection,
    dataSource: DataSource,
    outbox: OutboxWriter,
    audit: AuditTrail,
    metrics: MetricsRegistry,
  ) {
    this.runtime = new HubRuntime({
      config,
      login: {
        user: config.CAREEN_ORCHESTRATOR_EXCHANGE_USER,
        password: config.CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD,
        passwordSetting: 'CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD',
        without: 'strategies can be stored and read, but nothing planned, rolled out or upgraded',
      },
      logger,
      metrics,
    });
    const fleet = new FleetGateway(this.runtime.exchange);
    const rolloutStore = new RolloutStore(dataSource);
    const upgradeStore = new UpgradeStore(dataSource);
    const events = new RolloutEvents(outbox);
    const strategyStore = new StrategyStore(dataSource, audit);
    this.strategies = new Strategies(strategyStore, fleet);
    this.rollouts = new Rollouts(rolloutStore, strategyStore, fleet, events);
    this.upgrades = new Upgrades(upgradeStore, fleet, audit, config.CAREEN_ORCHESTRATOR_OFFLINE_SECONDS);
    if (!this.runtime.exchange) return;
    // The agbot's soaks, when it is named: a step counts done once the alert gates' soak is over.
    const soaks = config.CAREEN_AGBOT_URL
      ? new SoakGateway(this.runtime.exchange.service<Agbot.paths>(config.CAREEN_AGBOT_URL))
      : undefined;
    const driver = new OrchestratorDriver(
      new RolloutDriver(
        rolloutStore,
        fleet,
        events,
        new OrchestratorMetrics(metrics, dataSource),
        undefined,
        soaks,
      ),
      new UpgradeDriver(
        upgradeStore,
        fleet,
        config.CAREEN_ORCHESTRATOR_UPGRADE_TIMEOUT_SECONDS,
        undefined,
        soaks,
      ),
      config.CAREEN_ORCHESTRATOR_TICK_MS,
      logger,
    );
    this.rollouts.onChange = () => driver.wake();
    this.upgrades.onChange = () => driver.wake();
    this.runtime
      .part(() => wakeOnAnswers(bus.nc, () => driver.wake()))
      .runWhileLeading('careen:deployment-orchestrator:driver', (signal) => driver.run(signal));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.runtime.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runtime.stop();
  }
}
