import { type DynamicModule, Module, type ModuleMetadata, type Type } from '@nestjs/common';
import { CHANGE_LISTENERS, type ChangeListener } from '../mirror/change-listener';
import { AgbotLeadership } from './agbot-leadership';
import { InboxPruner } from './inbox-pruner';
import { LEADER_TASKS, type LeaderTask } from './leader-task';

export interface LeadershipWiring {
  /** The modules that provide the listeners and tasks. */
  imports: ModuleMetadata['imports'];
  /** Called with each change, in this order, once the mirror has applied it. */
  listeners: Type<ChangeListener>[];
  /** Run while this replica leads, beside the leadership's own (the inbox pruner). */
  tasks: Type<LeaderTask>[];
}

/**
 * The elected controller: it feeds the mirror, passes changes to the listeners and runs the
 * leader's tasks. It knows them only as listeners and tasks; the application says which.
 */
@Module({})
export class LeadershipModule {
  static register(wiring: LeadershipWiring): DynamicModule {
    return {
      module: LeadershipModule,
      imports: wiring.imports,
      providers: [
        AgbotLeadership,
        InboxPruner,
        {
          provide: CHANGE_LISTENERS,
          useFactory: (...listeners: ChangeListener[]): ChangeListener[] => listeners,
          inject: wiring.listeners,
        },
        {
          provide: LEADER_TASKS,
          useFactory: (pruner: InboxPruner, ...tasks: LeaderTask[]): LeaderTask[] => [...tasks, pruner],
          inject: [InboxPruner, ...wiring.tasks],
        },
      ],
      exports: [AgbotLeadership],
    };
  }
}
