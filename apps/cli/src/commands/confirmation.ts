/**
 * Asking before doing something hard to undo: `--yes` skips the question; a terminal is asked
 * `[y/N]`; without a terminal nothing is done unless `--yes` was given.
 */
import { CliError } from '../cli-errors';
import { confirm, isInteractive } from '../terminal/prompts';
import { type CommandContext } from './command-context';

/**
 * True when confirmed; false when the person answered no (already told on stderr).
 * @param refusal the error message when stdin is not a terminal and `--yes` is missing
 */
export async function confirmed(
  context: CommandContext,
  yes: boolean | undefined,
  question: string,
  refusal: string,
  declined = 'nothing removed',
): Promise<boolean> {
  if (yes) return true;
  const { stdin, stderr } = context.io;
  if (!isInteractive(stdin)) throw new CliError(`${refusal}: pass --yes`);
  if (await confirm(stdin, stderr, question)) return true;
  stderr.write(`${declined}\n`);
  return false;
}

/** Runs `remove` once confirmed (see `confirmed`), then says what was removed. */
export async function removeAfterConfirmation(
  context: CommandContext,
  what: string,
  yes: boolean | undefined,
  remove: () => Promise<unknown>,
): Promise<void> {
  if (!(await confirmed(context, yes, `Remove ${what}?`, `not removing ${what} without confirmation`)))
    return;
  await remove();
  context.printer.note(`removed ${what}`);
}

export const YES_OPTION = [
  '-y, --yes',
  'do not ask for confirmation (required when stdin is not a terminal)',
] as const;
