/**
 * Starts the outbox relay once the app is up and, on shutdown, stops in dependency order:
 * relay, then the bus (drained), then the database pool and readiness's own connection.
 */
import { type BusConnection, type OutboxRelay } from '@careen/bus';
import { type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type DataSource } from 'typeorm';
import { type DatabaseProbe } from '../health/database-probe';

export class PlatformLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: BusConnection,
    private readonly relay: OutboxRelay | undefined,
    private readonly probe: DatabaseProbe,
  ) {}

  onApplicationBootstrap(): void {
    this.relay?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
    await this.bus.close();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.probe.close();
  }
}
