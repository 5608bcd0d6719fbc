/**
 * Moves single-node upgrades on: sends each new one to its node (its management policy created
 * once), follows the status its agent reports into the history row, and once the attempt ended,
 * or ran out of time, gives the node back and then removes the policy (on the next pass, so that
 * a crash in between leaves the removal to do rather than a policy behind).
 */
import { eachOf } from '../driver/each-of';
import { type FleetGateway, PolicyRefused } from '../fleet/fleet-gateway';
import { releaseNodes } from '../rollouts/rollout-store';
import { upgradeHolder } from '../rollouts/rollout-record';
import { type UpgradeRecord, type UpgradeStore } from './upgrade-store';
import { FINISHED_UPGRADE_STATES, type UpgradeOutcome, upgradeOutcome } from './upgrade-states';

export class UpgradeDriver {
  constructor(
    private readonly store: UpgradeStore,
    private readonly fleet: FleetGateway,
    private readonly timeoutSeconds: number,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** One look at every upgrade under way; true when any moved on. One that fails holds up no other. */
  pass(): Promise<boolean> {
    return eachOf(this.store.unfinished(), (upgrade) => this.drive(upgrade));
  }

  private async drive(upgrade: UpgradeRecord): Promise<boolean> {
    const now = this.clock();
    if (upgrade.finished_at) {
      await this.fleet.removePolicy(upgrade.org, upgrade.policy);
      await this.store.update(upgrade.id, { policy_removed_at: now });
      return true;
    }
    if (!upgrade.started_at) {
      try {
        await this.fleet.ensurePolicy(upgrade.org, {
          name: upgrade.policy,
          nodes: [upgrade.node_id],
          version: upgrade.to_version,
          action: 'install',
          description: `upgrade ${upgrade.id} of node ${upgrade.node_id} to ${upgrade.to_version} (${upgrade.strategy})`,
          ...(upgrade.location && { location: upgrade.location }),
        });
      } catch (error) {
        // Asking again would be refused again (its package was removed since, say): it ends here.
        if (!(error instanceof PolicyRefused)) throw error;
        await this.finish(
          upgrade,
          { state: 'failed', status: null, error: `the exchange refused it: ${error.reason}` },
          now,
        );
        return true;
      }
      await this.store.update(upgrade.id, { started_at: now });
      return true;
    }
    const statuses = await this.fleet.statuses(upgrade.org, upgrade.policy);
    const reported = statuses?.find((each) => each.node === upgrade.node_id);
    const outcome = reported && (await this.outcomeOf(upgrade, reported.status));
    let state = outcome ? outcome.state : upgrade.state;
    let error = outcome?.error ?? reported?.error ?? upgrade.error;
    const late = now.getTime() - upgrade.started_at.getTime() > this.timeoutSeconds * 1000;
    if (!FINISHED_UPGRADE_STATES.includes(state) && (late || !statuses)) {
      state = 'failed';
      error = statuses
        ? `no outcome within ${this.timeoutSeconds} s (last status: ${reported?.status ?? 'none'})`
        : `its management policy ${upgrade.policy} was removed before the node answered`;
    }
    const finished = FINISHED_UPGRADE_STATES.includes(state);
    if (
      state === upgrade.state &&
      (reported?.status ?? null) === upgrade.status &&
      error === upgrade.error &&
      !finished
    )
      return false;
    await this.finish(upgrade, { state, status: reported?.status ?? upgrade.status, error }, now);
    return finished;
  }

  /** Records where the upgrade stands; once it is finished, gives its node back in the same step. */
  private async finish(
    upgrade: UpgradeRecord,
    change: Pick<UpgradeRecord, 'state' | 'status' | 'error'>,
    now: Date,
  ): Promise<void> {
    const finished = FINISHED_UPGRADE_STATES.includes(change.state);
    await this.store.transaction(async (manager) => {
      await this.store.update(upgrade.id, { ...change, ...(finished && { finished_at: now }) }, manager);
      if (finished) await releaseNodes(manager, upgradeHolder(upgrade.id));
    });
  }

  /** The node's running version is read only once its agent says it is done: only then does it decide. */
  private async outcomeOf(upgrade: UpgradeRecord, status: string): Promise<UpgradeOutcome> {
    const done = status === 'successful' || status === 'no-action-required';
    const running = done
      ? ((await this.fleet.node(upgrade.org, upgrade.node_id))?.agentVersion ?? null)
      : null;
    return upgradeOutcome(status, upgrade.to_version, running);
  }
}
