import { Module } from '@nestjs/common';
import { InstanceGroupFollower } from '../instance-groups/instance-group-follower';
import { PlacementLoop } from '../placement/placement-loop';
import { NodePlacementController } from './node-placement.controller';
import { RolloutsController } from './rollouts.controller';

/** Workload placement (within the declared instance groups) and rolled service upgrades, driven by the leading agbot. */
@Module({
  controllers: [RolloutsController, NodePlacementController],
  providers: [PlacementLoop, InstanceGroupFollower],
  exports: [PlacementLoop, InstanceGroupFollower],
})
export class PlacementModule {}
