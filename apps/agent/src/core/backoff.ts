/**
 * Exponential backoff with full jitter: the n-th wait is uniform in [base, min(max, base·2ⁿ)],
 * so thousands of agents that lost the exchange together do not come back together.
 */
import { type RandomSource } from './clock';

export class Backoff {
  private attempt = 0;

  constructor(
    private readonly random: RandomSource,
    private readonly baseMs = 500,
    private readonly maxMs = 30_000,
  ) {}

  /** The wait before the next try; each call widens the window. */
  next(): number {
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return this.baseMs + this.random() * (ceiling - this.baseMs);
  }

  reset(): void {
    this.attempt = 0;
  }

  get failures(): number {
    return this.attempt;
  }
}

/** A wait of `ms` spread by ±`spread` (0..1), for periodic work many agents do at once. */
export function jittered(ms: number, random: RandomSource, spread = 0.2): number {
  return ms * (1 - spread + 2 * spread * random());
}
