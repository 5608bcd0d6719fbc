/**
 * While this replica leads, follows the instance groups the maintenance service tells of
 * (durable `agbot-instance-groups` on CAREEN_MAINT): keeps each group's newest state and tells
 * placement that the rules may have changed. Any replica's gate reads the kept groups.
 */
import { runConsumer, type BusConnection } from '@careen/bus';
import { InstanceGroupDeclared } from '@careen/contracts';
import { BUS, SERVICE_LOGGER, untilAborted } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type LeaderTask } from '../leadership/leader-task';
import { PlacementLoop } from '../placement/placement-loop';
import { InstanceGroupStore } from './instance-group-store';

@Injectable()
export class InstanceGroupFollower implements LeaderTask {
  private readonly store: InstanceGroupStore;

  constructor(
    @Inject(BUS) private readonly bus: BusConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    dataSource: DataSource,
    private readonly placement: PlacementLoop,
  ) {
    this.store = new InstanceGroupStore(dataSource);
  }

  async run(signal: AbortSignal): Promise<void> {
    const consumer = await runConsumer({
      bus: this.bus,
      service: 'agbot',
      purpose: 'instance-groups',
      event: InstanceGroupDeclared,
      handler: async ({ payload }) => {
        if (await this.store.apply(payload)) this.placement.instanceGroupsChanged();
      },
      maxAckPending: 64,
      logger: this.logger,
    });
    await untilAborted(signal);
    await consumer.stop();
  }
}
