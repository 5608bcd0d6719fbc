import { OutboxWriter } from '@careen/persistence';
import { MetricsRegistry, SERVICE_CONFIG } from '@careen/service';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { GrantStore } from './grant-store';
import { GroupReleases } from './group-releases';
import { LeaseSweeper } from './lease-sweeper';
import { NodesSeenSubscription } from './nodes-seen-subscription';
import { ReleaseSubscription } from './release-subscription';
import { UpgradeMetrics } from './upgrade-metrics';
import { UpgradeMonitor } from './upgrade-monitor';
import { UpgradeSemaphore } from './upgrade-semaphore';
import { MaintenanceSlotsController } from './maintenance-slots.controller';
import { UpgradesController } from './upgrades.controller';
import { UpgradesService } from './upgrades.service';
import { DisruptionController } from '../disruption/disruption.controller';
import { AlertWatch } from '../disruption/alert-watch';
import { BusyController } from '../disruption/busy.controller';
import { SoakWatch } from '../disruption/soak-watch';
import { SoaksController } from '../disruption/soaks.controller';

/**
 * HA-group agent-upgrade grants: the semaphore, its routes, the lease sweep and the monitor
 * (a change listener for the agbot's changes consumer).
 */
@Module({
  controllers: [
    UpgradesController,
    MaintenanceSlotsController,
    DisruptionController,
    BusyController,
    SoaksController,
  ],
  providers: [
    AlertWatch,
    {
      provide: GrantStore,
      inject: [OutboxWriter, AlertWatch],
      useFactory: (outbox: OutboxWriter, alerts: AlertWatch) =>
        new GrantStore(outbox, (url) => alerts.answerOf(url)),
    },
    {
      provide: UpgradeMetrics,
      inject: [MetricsRegistry, DataSource, GroupReleases],
      useFactory: (metrics: MetricsRegistry, dataSource: DataSource, releases: GroupReleases) =>
        new UpgradeMetrics(metrics, dataSource, releases),
    },
    {
      provide: UpgradeSemaphore,
      inject: [DataSource, GrantStore, UpgradeMetrics],
      useFactory: (dataSource: DataSource, store: GrantStore, metrics: UpgradeMetrics) =>
        new UpgradeSemaphore(dataSource, store, metrics),
    },
    {
      provide: UpgradeMonitor,
      inject: [UpgradeSemaphore, GrantStore, SERVICE_CONFIG],
      useFactory: (semaphore: UpgradeSemaphore, store: GrantStore, config: AgbotConfig) =>
        new UpgradeMonitor(semaphore, store, config.CAREEN_UPGRADE_LEASE_SECONDS),
    },
    { provide: GroupReleases, useValue: new GroupReleases() },
    ReleaseSubscription,
    NodesSeenSubscription,
    UpgradesService,
    LeaseSweeper,
    SoakWatch,
  ],
  exports: [UpgradeSemaphore, UpgradeMonitor],
})
export class UpgradesModule {}
