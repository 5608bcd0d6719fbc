import { type ExchangeClient } from '@careen/service';

/**
 * Work only the leading agbot does (placement, rollouts). `run` starts once the mirror is
 * current and must return soon after `signal` aborts. Without exchange credentials the
 * exchange client is absent.
 */
export interface LeaderTask {
  run(signal: AbortSignal, exchange: ExchangeClient | undefined): Promise<void>;
}

/** Nest token for the leader's tasks. */
export const LEADER_TASKS = Symbol('LEADER_TASKS');
