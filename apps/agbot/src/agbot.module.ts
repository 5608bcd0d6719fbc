import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { type AgbotConfig } from './agbot.config';
import { InitAgbot1763769600000 } from './migrations/1763769600000-init-agbot';
import { ExchangeMirror1764000000000 } from './migrations/1764000000000-exchange-mirror';
import { UpgradeGrants1764000100000 } from './migrations/1764000100000-upgrade-grants';
import { Placement1764000200000 } from './migrations/1764000200000-placement';
import { UpgradeHalts1764100200000 } from './migrations/1764100200000-upgrade-halts';
import { GrantRuleInCode1764100300000 } from './migrations/1764100300000-grant-rule-in-code';
import { MaintenanceHolders1764100400000 } from './migrations/1764100400000-maintenance-holders';
import { FleetLockWaiters1764400500000 } from './migrations/1764400500000-fleetlock-waiters';
import { BusyNodes1764600000000 } from './migrations/1764600000000-busy-nodes';
import { Soaks1764700000000 } from './migrations/1764700000000-soaks';
import { InstanceGroups1765100000000 } from './migrations/1765100000000-instance-groups';
import { PlacedSchedulable1765200000000 } from './migrations/1765200000000-placed-schedulable';
import { InstanceGroupFollower } from './instance-groups/instance-group-follower';
import { UpgradesModule } from './upgrades/upgrades.module';
import { MirrorModule } from './mirror/mirror.module';
import { LeadershipModule } from './leadership/leadership.module';
import { PlacementLoop } from './placement/placement-loop';
import { PlacementModule } from './controller/placement.module';
import { UpgradeMonitor } from './upgrades/upgrade-monitor';
import { DeployCheckModule } from './deploycheck/deploycheck.module';
import { FleetLockModule } from './fleetlock/fleetlock.module';

export const AGBOT_ENTITIES = [OutboxMessageEntity];
export const AGBOT_MIGRATIONS = [
  InitAgbot1763769600000,
  ExchangeMirror1764000000000,
  UpgradeGrants1764000100000,
  Placement1764000200000,
  UpgradeHalts1764100200000,
  GrantRuleInCode1764100300000,
  MaintenanceHolders1764100400000,
  FleetLockWaiters1764400500000,
  BusyNodes1764600000000,
  Soaks1764700000000,
  InstanceGroups1765100000000,
  PlacedSchedulable1765200000000,
];

@Module({})
export class AgbotModule {
  static forRoot(config: AgbotConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AgbotModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'agbot',
          config,
          entities: AGBOT_ENTITIES,
          migrations: AGBOT_MIGRATIONS,
          // CAREEN_MAINT: the instance groups the maintenance service tells of.
          streams: [STREAMS.changes, STREAMS.agbot, STREAMS.maintenance, STREAMS.deadLetters, STREAMS.audit],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
        MirrorModule,
        LeadershipModule.register({
          imports: [PlacementModule, UpgradesModule],
          listeners: [PlacementLoop, UpgradeMonitor],
          tasks: [PlacementLoop, InstanceGroupFollower],
        }),
        DeployCheckModule,
        UpgradesModule,
        FleetLockModule,
      ],
    };
  }
}
