/**
 * Moves single-node upgrades on, as the rollout driver moves rollouts: per upgrade, the exchange
 * commands its last steps left first, then what the exchange says of its policy is read with no
 * transaction open, then one short transaction locks the row, decides the step as a plain
 * function (upgrade-decision.ts) and stores the change, the node given back and the commands
 * together; the commands are carried out after the commit. An upgrade with a command still to
 * carry out is not decided; a crash between a commit and its commands leaves them to the next
 * pass.
 */
import { CommandRunner } from '../driver/command-runner';
import { type CommandStore } from '../driver/command-store';
import { eachOf } from '../driver/each-of';
import { policyFacts } from '../driver/exchange-command';
import { type FleetGateway } from '../fleet/fleet-gateway';
import { type SoakGateway } from '../fleet/soak-gateway';
import { releaseNodes } from '../rollouts/rollout-store';
import { upgradeHolder } from '../rollouts/rollout-record';
import { agentDone, decideUpgrade, type UpgradeObservation } from './upgrade-decision';
import { type UpgradeRecord, type UpgradeStore } from './upgrade-store';

export class UpgradeDriver {
  private readonly commands: CommandStore;
  private readonly runner: CommandRunner;

  constructor(
    private readonly store: UpgradeStore,
    private readonly fleet: FleetGateway,
    private readonly timeoutSeconds: number,
    private readonly clock: () => Date = () => new Date(),
    /** The agbot's soaks; without it the upgrade is done once the agent says so. */
    private readonly soaks?: SoakGateway,
  ) {
    this.commands = store.commands;
    this.runner = new CommandRunner(fleet, store.commands, clock);
  }

  /** One look at every upgrade under way; true when any moved on. One that fails holds up no other. */
  pass(): Promise<boolean> {
    return eachOf(this.store.unfinished(), (upgrade) => this.look(upgrade));
  }

  /** One look at the upgrade; true when it moved on (sent, started, ended, its policy removed). */
  async drive(id: string): Promise<boolean> {
    const upgrade = await this.store.get(id);
    return upgrade ? this.look(upgrade) : false;
  }

  /** `upgrade` as read without a lock. */
  private async look(upgrade: UpgradeRecord): Promise<boolean> {
    const holder = upgradeHolder(upgrade.id);
    // Commands leave the row as it is: what was read still says what to look at.
    const carried = await this.runner.carryOut(holder);
    const seen = await this.observe(upgrade);
    const step = await this.store.transaction(async (manager) => {
      const locked = await this.store.lock(manager, upgrade.id);
      if (!locked) return undefined;
      if (await this.commands.anyPending(manager, holder)) return 'commands first';
      const decided = decideUpgrade(locked, seen, this.clock(), this.timeoutSeconds);
      if (decided.change) await this.store.update(upgrade.id, decided.change, manager);
      await this.commands.add(manager, holder, decided.commands);
      if (decided.release) await releaseNodes(manager, holder);
      return decided;
    });
    if (step === undefined) return carried;
    if (step === 'commands first') return (await this.runner.carryOut(holder)) || carried;
    if (step.commands.length > 0) await this.runner.carryOut(holder);
    return carried || step.moved;
  }

  /**
   * What the commands carried out for its policy brought about and, while it is under way, the
   * node's status for it; the node's running version only once its agent says it is done.
   */
  private async observe(upgrade: UpgradeRecord): Promise<UpgradeObservation> {
    const facts = policyFacts(await this.commands.carriedOut(upgradeHolder(upgrade.id), upgrade.policy));
    if (!upgrade.started_at || upgrade.finished_at) return facts;
    const reportedNow = await this.fleet.statuses(upgrade.org, upgrade.policy);
    // Done counts once the alert gates' soak of the step is over (as a rollout's node).
    const statuses =
      reportedNow && this.soaks ? await this.soaks.settle(upgrade.org, reportedNow) : reportedNow;
    const reported = statuses?.find((each) => each.node === upgrade.node_id);
    const running =
      reported && agentDone(reported.status)
        ? ((await this.fleet.node(upgrade.org, upgrade.node_id))?.agentVersion ?? null)
        : null;
    return { ...facts, exchange: { statuses, running } };
  }
}
