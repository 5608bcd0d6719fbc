/**
 * Permission to install inside an HA group: asks the agbot until it grants, then keeps the
 * lease alive by renewing it every third of its life until released. A node outside any
 * group needs no permission. The first request is answered at once, so a refusal is reported
 * (`ha-waiting`) without delay; later ones wait at the agbot for the slot (`?wait=`), which
 * answers as soon as a peer releases it. An agbot that answers a wait early (one that does not
 * hold requests) is asked again after a jittered backoff, as is one that cannot be reached.
 * Giving the slot back is tried again the same way while the agbot cannot take it: a release
 * lost to a restart or a broken connection would otherwise leave the whole group waiting.
 */
import { Backoff } from '../core/backoff';
import { type Clock, type RandomSource } from '../core/clock';
import { PolicyStopped } from '../enactment/policy-stopped';
import { ApiError } from '@careen/api-client';
import { type AgbotClient, type UpgradeHolder } from './agbot-client';

/** How long an agent tries to give its slot back: the agbot's default lease. */
const RELEASE_WITHIN_MS = 120_000;

export interface HaPermitOptions {
  /** Backoff between attempts. */
  retry?: { baseMs: number; maxMs: number };
  /** How long a request may wait at the agbot for the slot (30 s by default). */
  waitSeconds?: number;
  /** The agent stopping: a slot not given back by then is left to the agbot. */
  stopping?: AbortSignal;
}

export interface HeldPermit {
  release(): Promise<void>;
  /**
   * Stops renewing without giving the slot back: the node failed and is not healthy, so the
   * agbot keeps its group halted until it is (or an admin resets it).
   */
  keep(): Promise<void>;
}

export interface PermitEvents {
  /**
   * Called once, when the first refusal makes the agent wait: for a peer (`holder`), or for a
   * window, freeze, busy declaration, alert gate or budget (`why`, the agbot's words).
   */
  waiting(holder: UpgradeHolder | undefined, why?: string): Promise<void>;
  granted(): void;
}

export class HaPermit {
  constructor(
    private readonly agbot: AgbotClient,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    private readonly options: HaPermitOptions = {},
  ) {}

  private get retry(): { baseMs: number; maxMs: number } {
    return this.options.retry ?? { baseMs: 500, maxMs: 10_000 };
  }

  async acquire(managementPolicy: string, events: PermitEvents, signal: AbortSignal): Promise<HeldPermit> {
    const backoff = new Backoff(this.random, this.retry.baseMs, this.retry.maxMs);
    let announced = false;
    for (;;) {
      if (signal.aborted) throw new Error('stopped while waiting for the HA group');
      const wait = announced ? (this.options.waitSeconds ?? 30) : 0;
      const asked = this.clock.now().getTime();
      let answer;
      try {
        answer = await this.agbot.requestUpgrade(managementPolicy, wait, signal);
      } catch {
        // The agbot is unreachable or failing: keep asking, it is the only one who may grant.
        await this.clock.sleep(backoff.next(), signal);
        continue;
      }
      if (answer.granted) {
        events.granted();
        return this.hold(managementPolicy, answer.grant.leaseExpiresAt, answer.grant.grantedAt);
      }
      if (answer.policyStopped) throw new PolicyStopped(managementPolicy, 'agbot');
      if (!announced) {
        announced = true;
        await events.waiting(answer.holder, answer.why);
        continue;
      }
      const waitedAtAgbot = this.clock.now().getTime() - asked >= (wait * 1000) / 2;
      if (!waitedAtAgbot) await this.clock.sleep(backoff.next(), signal);
    }
  }

  private hold(managementPolicy: string, leaseExpiresAt: string, grantedAt: string): HeldPermit {
    const stop = new AbortController();
    const leaseMs = Math.max(1_000, Date.parse(leaseExpiresAt) - Date.parse(grantedAt));
    const renewing = (async () => {
      while (!stop.signal.aborted) {
        await this.clock.sleep(leaseMs / 3, stop.signal);
        if (stop.signal.aborted) return;
        // Renew only: a renewal delayed past the release must not take the group again. A
        // failed one is tried again at the next third; the lease outlives two misses.
        await this.agbot.renewUpgrade(managementPolicy, stop.signal).catch(() => undefined);
      }
    })();
    const keep = async () => {
      stop.abort();
      await renewing;
    };
    return {
      keep,
      release: async () => {
        await keep();
        await this.giveBack();
      },
    };
  }

  /**
   * Gives the slot back, asking again after a jittered backoff while the agbot cannot be
   * reached or fails (5xx), for at most `withinMs` and not past the agent's stop, so that the
   * agent is not held up for long; a refusal (4xx) is final. The agbot also ends the slot on
   * its own when the node's status for the policy ends, so this matters most for an upgrade
   * given up without an end status.
   */
  async giveBack(withinMs = RELEASE_WITHIN_MS): Promise<void> {
    const backoff = new Backoff(this.random, this.retry.baseMs, this.retry.maxMs);
    const until = this.clock.now().getTime() + withinMs;
    for (;;) {
      try {
        await this.agbot.release();
        return;
      } catch (error) {
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) return;
        const pause = backoff.next();
        if (this.options.stopping?.aborted || this.clock.now().getTime() + pause >= until) return;
        await this.clock.sleep(pause, this.options.stopping);
      }
    }
  }
}
