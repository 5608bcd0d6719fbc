import { Module } from '@nestjs/common';
import { PlacementController } from '../controller/placement-controller';
import { PlacementModule } from '../controller/placement.module';
import { CHANGE_LISTENERS, type ChangeListener } from '../mirror/change-listener';
import { UpgradeMonitor } from '../upgrades/upgrade-monitor';
import { UpgradesModule } from '../upgrades/upgrades.module';
import { AgbotLeadership } from './agbot-leadership';
import { InboxPruner } from './inbox-pruner';
import { LEADER_TASKS, type LeaderTask } from './leader-task';

/** The elected controller: it feeds the mirror, passes changes to the listeners and runs the leader's tasks. */
@Module({
  imports: [PlacementModule, UpgradesModule],
  providers: [
    AgbotLeadership,
    InboxPruner,
    {
      provide: CHANGE_LISTENERS,
      useFactory: (placement: PlacementController, upgrades: UpgradeMonitor): ChangeListener[] => [
        placement,
        upgrades,
      ],
      inject: [PlacementController, UpgradeMonitor],
    },
    {
      provide: LEADER_TASKS,
      useFactory: (placement: PlacementController, pruner: InboxPruner): LeaderTask[] => [placement, pruner],
      inject: [PlacementController, InboxPruner],
    },
  ],
  exports: [AgbotLeadership],
})
export class LeadershipModule {}
