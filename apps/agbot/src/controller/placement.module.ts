import { Module } from '@nestjs/common';
import { PlacementLoop } from '../placement/placement-loop';
import { RolloutsController } from './rollouts.controller';

/** Workload placement and rolled service upgrades, driven by the leading agbot. */
@Module({
  controllers: [RolloutsController],
  providers: [PlacementLoop],
  exports: [PlacementLoop],
})
export class PlacementModule {}
