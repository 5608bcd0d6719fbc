/**
 * A change read from the exchange's feed, checked against the wire contract before the agent
 * acts on it: a change whose shape or data breaks its resource's contract is never applied.
 * The contract's compiled check (compiled-check.ts) takes the changes a fleet makes by the
 * thousand in a few microseconds; class-validator judges the rest and names what is wrong.
 */
import { ChangePayload, checkCompiled, contractProblems } from '@careen/contracts';
import { type FeedChange } from '../exchange/exchange.types';

/** Why the change cannot be read, or undefined when it keeps the contract. */
export function feedChangeProblem(change: FeedChange): string | undefined {
  if (!Number.isSafeInteger(change.id) || change.id < 1) return 'id: must be a positive integer';
  // The feed's id is no field of the contract, whose compiled check takes no field it does not name.
  const { id: _id, ...payload } = change;
  if (checkCompiled(ChangePayload, 'body', payload)) return undefined;
  return contractProblems(ChangePayload, change);
}
