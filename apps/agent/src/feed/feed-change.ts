/**
 * A change read from the exchange's feed, checked against the wire contract before the agent
 * acts on it: a change whose shape or data breaks its resource's contract is never applied.
 */
import { ChangePayload, contractProblems } from '@careen/contracts';
import { type FeedChange } from '../exchange/exchange.types';

/** Why the change cannot be read, or undefined when it keeps the contract. */
export function feedChangeProblem(change: FeedChange): string | undefined {
  if (!Number.isSafeInteger(change.id) || change.id < 1) return 'id: must be a positive integer';
  return contractProblems(ChangePayload, change);
}
