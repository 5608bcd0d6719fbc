import { Module } from '@nestjs/common';
import { PlacementController } from './placement-controller';
import { RolloutsController } from './rollouts.controller';

/** Workload placement and rolled service upgrades, driven by the leading agbot. */
@Module({
  controllers: [RolloutsController],
  providers: [PlacementController],
  exports: [PlacementController],
})
export class PlacementModule {}
