/**
 * Reports the node's status at least once per interval, even when nothing changed: the agbot
 * judges a node offline by the last status it saw published, and a change-feed poll, though
 * the exchange stamps the heartbeat time, publishes nothing. Each period is drawn a little
 * shorter than the interval, so a fleet started together does not report in lockstep.
 */
import { type Clock, type RandomSource } from './clock';

export interface NodeStatusTarget {
  /** Writes the node's status; `force` writes it even when unchanged. */
  node(force: boolean): Promise<void>;
  /** When the exchange last took a node status (clock ms), if ever. */
  readonly lastNodeReportAt: number | undefined;
}

/** How much shorter than the interval a period may be drawn. */
export const HEARTBEAT_SPREAD = 0.2;

export class StatusHeartbeat {
  constructor(
    private readonly target: NodeStatusTarget,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    private readonly intervalMs: number,
  ) {}

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    // Counted from the start: the agent reports once as soon as it has read its node.
    let attemptedAt = this.clock.now().getTime();
    let period = this.period();
    while (!signal.aborted) {
      const since = Math.max(this.target.lastNodeReportAt ?? attemptedAt, attemptedAt);
      const wait = since + period - this.clock.now().getTime();
      if (wait > 0) {
        await this.clock.sleep(wait, signal);
        continue;
      }
      attemptedAt = this.clock.now().getTime();
      period = this.period();
      await this.target.node(true);
    }
  }

  private period(): number {
    return this.intervalMs * (1 - HEARTBEAT_SPREAD * this.random());
  }
}
