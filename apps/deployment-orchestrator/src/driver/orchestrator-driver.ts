/**
 * The orchestrator's background work, run only by the elected replica so that two replicas never
 * drive one rollout or upgrade: each pass moves every rollout and every single-node upgrade under
 * way. A change made through the API wakes it at once.
 */
import { WakeableLoop } from '@careen/service';
import { type RolloutDriver } from '../rollouts/rollout-driver';
import { type UpgradeDriver } from '../upgrades/upgrade-driver';

export interface DriverLogger {
  warn(fields: object, message: string): void;
}

export class OrchestratorDriver {
  private readonly loop: WakeableLoop;

  constructor(
    private readonly rollouts: RolloutDriver,
    private readonly upgrades: UpgradeDriver,
    tickMs: number,
    logger: DriverLogger,
  ) {
    this.loop = new WakeableLoop(tickMs, (error) =>
      logger.warn({ err: String(error) }, 'orchestrator pass failed; trying again'),
    );
  }

  run(signal: AbortSignal): Promise<void> {
    return this.loop.run(signal, async () => {
      const rolled = await this.rollouts.pass();
      return (await this.upgrades.pass()) || rolled;
    });
  }

  wake(): void {
    this.loop.wake();
  }
}
