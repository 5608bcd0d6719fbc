/**
 * Releases slots whose lease ran out, so a holder that died never blocks its group for good.
 * Every replica sweeps; each expired slot is released exactly once whoever gets there first.
 */
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type AgbotConfig } from '../agbot.config';
import { UpgradeSemaphore } from './upgrade-semaphore';

/** Sweep four times per (shortest) lease, within these bounds. */
const MIN_INTERVAL_MS = 250;
const MAX_INTERVAL_MS = 10_000;

export function sweepIntervalMs(config: AgbotConfig): number {
  const shortestLeaseMs =
    Math.min(config.CAREEN_UPGRADE_LEASE_SECONDS, config.CAREEN_FLEETLOCK_LEASE_SECONDS) * 1000;
  return Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, Math.floor(shortestLeaseMs / 4)));
}

@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly semaphore: UpgradeSemaphore,
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.loop(sweepIntervalMs(this.config));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  private async loop(intervalMs: number): Promise<void> {
    while (!this.stop.signal.aborted) {
      await new Promise<void>((resolve) => {
        const stopped = () => (clearTimeout(timer), resolve());
        const timer = setTimeout(() => {
          // One listener per wait, gone with it: they would pile up on the signal otherwise.
          this.stop.signal.removeEventListener('abort', stopped);
          resolve();
        }, intervalMs);
        this.stop.signal.addEventListener('abort', stopped, { once: true });
      });
      if (this.stop.signal.aborted) return;
      try {
        const released = await this.semaphore.sweepExpired();
        if (released > 0) this.logger.info({ released }, 'released upgrade slots whose lease ran out');
      } catch (error) {
        this.logger.warn({ err: String(error) }, 'lease sweep failed; retrying');
      }
    }
  }
}
