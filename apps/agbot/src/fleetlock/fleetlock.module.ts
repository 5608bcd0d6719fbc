import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { UpgradesModule } from '../upgrades/upgrades.module';
import { FleetLockBodyMiddleware } from './fleetlock-body.middleware';
import { FleetLockCaller } from './fleetlock-caller';
import { FleetLockWaiters } from './fleetlock-waiters';
import { FleetLockWaitersController } from './fleetlock-waiters.controller';
import { FleetLockController } from './fleetlock.controller';
import { FleetLockService } from './fleetlock.service';

/** The FleetLock protocol over the upgrade semaphore, and who waits for a reboot slot. */
@Module({
  imports: [UpgradesModule],
  controllers: [FleetLockController, FleetLockWaitersController],
  providers: [FleetLockService, FleetLockCaller, FleetLockWaiters],
})
export class FleetLockModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(FleetLockBodyMiddleware).forRoutes(FleetLockController);
  }
}
