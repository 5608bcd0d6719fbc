/**
 * Puts the orchestrator's parts together: strategies, rollouts and upgrades (any replica takes
 * requests) and the driver (only the elected replica runs it), woken when agents answer.
 */
import { type BusConnection } from '@careen/bus';
import { LeaderElection, OutboxWriter } from '@careen/persistence';
import {
  BUS,
  ExchangeClient,
  exchangeCredentials,
  MetricsRegistry,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Subscription } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import { wakeOnAnswers } from './driver/answer-wakeup';
import { type DeploymentOrchestratorConfig } from './deployment-orchestrator.config';
import { OrchestratorDriver } from './driver/orchestrator-driver';
import { FleetGateway } from './fleet/fleet-gateway';
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
  private readonly election: LeaderElection | undefined;
  private readonly driver: OrchestratorDriver | undefined;
  private answers: Subscription | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) config: DeploymentOrchestratorConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(BUS) private readonly bus: BusConnection,
    dataSource: DataSource,
    outbox: OutboxWriter,
    metrics: MetricsRegistry,
  ) {
    const credentials = exchangeCredentials(
      config.CAREEN_ORCHESTRATOR_EXCHANGE_USER,
      config.CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD,
    );
    const fleet = new FleetGateway(
      credentials && new ExchangeClient(config.CAREEN_EXCHANGE_URL, credentials),
    );
    const rolloutStore = new RolloutStore(dataSource);
    const upgradeStore = new UpgradeStore(dataSource);
    const events = new RolloutEvents(outbox);
    const strategyStore = new StrategyStore(dataSource);
    this.strategies = new Strategies(strategyStore, fleet);
    this.rollouts = new Rollouts(rolloutStore, strategyStore, fleet, events);
    this.upgrades = new Upgrades(upgradeStore, fleet, config.CAREEN_ORCHESTRATOR_OFFLINE_SECONDS);
    if (!credentials) return;
    const driver = new OrchestratorDriver(
      new RolloutDriver(rolloutStore, fleet, events, new OrchestratorMetrics(metrics, dataSource)),
      new UpgradeDriver(upgradeStore, fleet, config.CAREEN_ORCHESTRATOR_UPGRADE_TIMEOUT_SECONDS),
      config.CAREEN_ORCHESTRATOR_TICK_MS,
      logger,
    );
    this.driver = driver;
    this.rollouts.onChange = () => driver.wake();
    this.upgrades.onChange = () => driver.wake();
    this.election = new LeaderElection({
      databaseUrl: config.CAREEN_DATABASE_URL,
      key: 'careen:deployment-orchestrator:driver',
      logger,
      lead: (signal) => driver.run(signal),
    });
    metrics.trackLeadership(this.election);
  }

  onApplicationBootstrap(): void {
    if (!this.election)
      this.logger.warn(
        { variable: 'CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD' },
        'no exchange credentials: strategies can be stored and read, but nothing planned, rolled out or upgraded',
      );
    const driver = this.driver;
    if (driver) this.answers = wakeOnAnswers(this.bus.nc, () => driver.wake());
    this.election?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.answers?.unsubscribe();
    await this.election?.stop();
  }
}
