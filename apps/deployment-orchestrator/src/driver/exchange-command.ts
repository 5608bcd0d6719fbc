/**
 * What a rollout or an upgrade asks of the exchange. A step decides its commands with the
 * record locked and stores them with the record's new state; they are carried out after the
 * step commits, never inside it, and what they brought about is read by the next step as it
 * reads the nodes' statuses. Every command is idempotent (a policy created only if missing,
 * removing one that is gone or pausing a paused one changes nothing), so one carried out again
 * after a crash that lost its mark does no harm.
 */
import { type NodePolicy } from '../fleet/fleet-gateway';

export type ExchangeCommand =
  | { kind: 'ensure-policy'; org: string; policy: NodePolicy }
  | { kind: 'remove-policy'; org: string; name: string }
  | { kind: 'set-paused'; org: string; name: string; paused: boolean };

/** What carrying a command out brought back that a step must know: the exchange refused it for good. */
export interface CommandResult {
  refused: string;
}

export interface CarriedOutCommand {
  command: ExchangeCommand;
  result: CommandResult | null;
  doneAt: Date;
}

/** The management policy a command is about. */
export function policyOf(command: ExchangeCommand): string {
  return command.kind === 'ensure-policy' ? command.policy.name : command.name;
}

/** Where a policy stands at the exchange, from the commands carried out for it. */
export interface PolicyFacts {
  /** When the last creation carried out found it or put it in place. */
  placedAt?: Date;
  /** Why the exchange refused the last creation, which asking again would not change. */
  refused?: string;
  /** Whether the last pause or resume carried out left it paused. */
  paused: boolean;
  /** When it was last removed. */
  removedAt?: Date;
}

/** The facts of the commands carried out for one policy, given oldest first. */
export function policyFacts(carried: readonly CarriedOutCommand[]): PolicyFacts {
  const facts: PolicyFacts = { paused: false };
  for (const { command, result, doneAt } of carried) {
    if (command.kind === 'ensure-policy') {
      delete facts.placedAt;
      delete facts.refused;
      if (result) facts.refused = result.refused;
      else facts.placedAt = doneAt;
    } else if (command.kind === 'set-paused') facts.paused = command.paused;
    else facts.removedAt = doneAt;
  }
  return facts;
}
