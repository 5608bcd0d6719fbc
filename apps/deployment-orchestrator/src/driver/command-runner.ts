/**
 * Carries out a holder's stored exchange commands, oldest first, each once its step has
 * committed: it holds no row lock and no database connection while the exchange answers, so an
 * exchange that is down or hangs holds up only this pass, never an operator's pause or cancel.
 * A command that fails stays pending with why, and those after it wait (a rollout's next phase
 * is never sent before the last one's policy is gone); the next pass starts with it again.
 */
import { type FleetGateway, PolicyRefused } from '../fleet/fleet-gateway';
import { type CommandStore } from './command-store';
import { type CommandResult, type ExchangeCommand } from './exchange-command';

export class CommandRunner {
  constructor(
    private readonly fleet: FleetGateway,
    private readonly commands: CommandStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Carries out the holder's pending commands in order; true when any was. Throws at the first that fails. */
  async carryOut(holder: string): Promise<boolean> {
    let any = false;
    for (const next of await this.commands.pending(holder)) {
      let result: CommandResult | undefined;
      try {
        result = await this.execute(next.command);
      } catch (error) {
        // Keeping why is for the operator; the exchange's failure is what the pass reports.
        await this.commands.putOff(next.id, String(error)).catch(() => undefined);
        throw error;
      }
      await this.commands.done(next.id, this.clock(), result);
      any = true;
    }
    return any;
  }

  private async execute(command: ExchangeCommand): Promise<CommandResult | undefined> {
    switch (command.kind) {
      case 'ensure-policy':
        try {
          await this.fleet.ensurePolicy(command.org, command.policy);
          return undefined;
        } catch (error) {
          // Asking again would be refused again (its package was removed since, say): the
          // refusal is the command's outcome, for the next step to act on.
          if (error instanceof PolicyRefused) return { refused: error.reason };
          throw error;
        }
      case 'remove-policy':
        await this.fleet.removePolicy(command.org, command.name);
        return undefined;
      case 'set-paused':
        await this.fleet.setPaused(command.org, command.name, command.paused);
        return undefined;
    }
  }
}
