/**
 * Moves rollouts on, as the maintenance service moves its sessions: per rollout, first the
 * exchange commands its last steps left (in order; one that fails stays, and the rollout waits
 * for the next pass), then what the exchange says of the phase under way is read, with no
 * transaction open, then one short transaction locks the rollout, decides its step as a plain
 * function (rollout-decision.ts) and stores the new state, its events and its commands
 * together, and after the commit the commands are carried out. A rollout with a command still
 * to carry out is not decided, so every step sees the exchange as the commands before it left
 * it; a crash between a commit and its commands leaves them to the next pass. It never calls the
 * exchange with a row locked or a connection held.
 */
import { CommandRunner } from '../driver/command-runner';
import { type CommandStore } from '../driver/command-store';
import { eachOf } from '../driver/each-of';
import { policyFacts } from '../driver/exchange-command';
import { type FleetGateway } from '../fleet/fleet-gateway';
import { type SoakGateway } from '../fleet/soak-gateway';
import { type PhaseObserver } from '../orchestrator-metrics';
import { decideRollout, observedPolicy, type RolloutObservation } from './rollout-decision';
import { type RolloutEvents } from './rollout-events';
import { rolloutHolder } from './rollout-record';
import { type DrivableRollout, releaseNodes, type RolloutStore } from './rollout-store';

export class RolloutDriver {
  private readonly commands: CommandStore;
  private readonly runner: CommandRunner;

  constructor(
    private readonly store: RolloutStore,
    private readonly fleet: FleetGateway,
    private readonly events: RolloutEvents,
    private readonly phases?: PhaseObserver,
    private readonly clock: () => Date = () => new Date(),
    /** The agbot's soaks; without it a node's step is done once it reports so. */
    private readonly soaks?: SoakGateway,
  ) {
    this.commands = store.commands;
    this.runner = new CommandRunner(fleet, store.commands, clock);
  }

  /** One look at every rollout under way; true when any moved on. One that fails holds up no other. */
  pass(): Promise<boolean> {
    return eachOf(this.store.drivable(), (rollout) => this.look(rollout));
  }

  /** One look at the rollout; true when it moved on (a command carried out, a phase sent or ended, the rollout over). */
  drive(id: string): Promise<boolean> {
    return this.look({ id, pending: true, underWay: true });
  }

  private async look({ id, pending, underWay }: DrivableRollout): Promise<boolean> {
    const holder = rolloutHolder(id);
    const carried = pending && (await this.runner.carryOut(holder));
    // Between phases there is nothing to read first: the step is decided at once.
    const seen = underWay ? await this.observe(id) : undefined;
    const step = await this.store.transaction(async (manager) => {
      const locked = await this.store.lock(manager, id);
      if (!locked) return undefined;
      // Something asked of it since it was read (an operator's pause, say) goes first.
      if (await this.commands.anyPending(manager, holder)) return 'commands first';
      const decided = decideRollout(locked, seen, this.clock());
      // A look that changed nothing (the nodes still at it, their statuses as before) writes nothing.
      if (decided.changed) await this.store.save(manager, decided.record);
      await this.events.write(manager, decided.record, decided.events);
      await this.commands.add(manager, holder, decided.commands);
      if (decided.release) await releaseNodes(manager, holder);
      return decided;
    });
    if (step === undefined) return carried;
    if (step === 'commands first') return (await this.runner.carryOut(holder)) || carried;
    for (const ended of step.phasesEnded) this.phases?.phaseEnded(ended.phase, ended.seconds);
    if (step.commands.length > 0) await this.runner.carryOut(holder);
    return carried || step.moved;
  }

  /**
   * What the exchange says of the phase under way, read with no transaction open and after every
   * command before it was carried out (which leave the rollout as it was).
   */
  private async observe(id: string): Promise<RolloutObservation | undefined> {
    const record = await this.store.get(id);
    const policy = record && observedPolicy(record);
    if (!record || !policy) return undefined;
    const facts = policyFacts(await this.commands.carriedOut(rolloutHolder(id), policy));
    // A refused policy was never in place; a cancel reads the statuses only once its pause is.
    const unread = facts.refused !== undefined || (record.state === 'cancelling' && !facts.paused);
    const statuses = unread ? undefined : await this.fleet.statuses(record.org, policy);
    // A node that reported its step done counts so only once the alert gates' soak of it is over.
    const soaked = statuses && this.soaks ? await this.soaks.settle(record.org, statuses) : statuses;
    return { ...facts, policy, statuses: soaked };
  }
}
