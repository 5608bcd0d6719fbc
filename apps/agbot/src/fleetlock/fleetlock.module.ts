import { Module } from '@nestjs/common';
import { UpgradesModule } from '../upgrades/upgrades.module';
import { FleetLockCaller } from './fleetlock-caller';
import { FleetLockController } from './fleetlock.controller';
import { FleetLockService } from './fleetlock.service';

/** The FleetLock protocol over the upgrade semaphore. */
@Module({
  imports: [UpgradesModule],
  controllers: [FleetLockController],
  providers: [FleetLockService, FleetLockCaller],
})
export class FleetLockModule {}
