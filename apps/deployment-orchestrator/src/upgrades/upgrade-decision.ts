/**
 * One step of a single-node upgrade as a plain function of its history row, what was seen of
 * its policy and the time: the change to the row, the exchange commands to carry out once the
 * step is stored, and whether the node is given back. It does no I/O; the driver reads before
 * and carries out after, as for rollouts.
 *
 * The upgrade is sent once, as its own management policy; its time runs from when the policy is
 * in place. The status its agent reports is followed into the row; once the attempt ended, or
 * ran out of time, or its policy is gone, the row is finished and the node given back in the
 * same step, which also asks for the policy's removal; the row keeps when that was carried out.
 */
import { type ExchangeCommand, type PolicyFacts } from '../driver/exchange-command';
import { type PolicyStatus } from '../fleet/fleet-gateway';
import { type UpgradeChange, type UpgradeRecord } from './upgrade-store';
import { FINISHED_UPGRADE_STATES, upgradeOutcome } from './upgrade-states';

/** What was seen of the upgrade's policy: the commands carried out for it and, once sent, the exchange. */
export interface UpgradeObservation extends PolicyFacts {
  /** Read once the upgrade has started and until it ends. */
  exchange?: {
    /** Every node's status for the policy; undefined when the policy is gone. */
    statuses: readonly PolicyStatus[] | undefined;
    /** The version the node reports running, read only once its agent says it is done. */
    running: string | null;
  };
}

export interface UpgradeStep {
  change?: UpgradeChange;
  /** To carry out in this order once the step is stored. */
  commands: ExchangeCommand[];
  /** The upgrade ended: its node is given back. */
  release: boolean;
  /** It moved on (sent, started, ended, its policy removed); a status followed is no move. */
  moved: boolean;
}

/** Whether the agent's status says it is done, so that the node's running version decides. */
export function agentDone(status: string): boolean {
  return status === 'successful' || status === 'no-action-required';
}

export function decideUpgrade(
  upgrade: UpgradeRecord,
  seen: UpgradeObservation,
  now: Date,
  timeoutSeconds: number,
): UpgradeStep {
  if (upgrade.finished_at) {
    if (seen.removedAt)
      return { change: { policy_removed_at: seen.removedAt }, commands: [], release: false, moved: true };
    return { commands: [removal(upgrade)], release: false, moved: true };
  }
  if (!upgrade.started_at) {
    if (seen.refused !== undefined)
      return finish(
        upgrade,
        {
          state: 'failed',
          status: null,
          error: `the exchange refused it: ${seen.refused}`,
        },
        now,
      );
    if (seen.placedAt)
      return { change: { started_at: seen.placedAt }, commands: [], release: false, moved: true };
    return { commands: [sending(upgrade)], release: false, moved: true };
  }
  if (!seen.exchange) return { commands: [], release: false, moved: false };
  const { statuses, running } = seen.exchange;
  const reported = statuses?.find((each) => each.node === upgrade.node_id);
  const outcome =
    reported && upgradeOutcome(reported.status, upgrade.to_version, running, upgrade.allow_downgrade);
  let state = outcome ? outcome.state : upgrade.state;
  let error = outcome?.error ?? reported?.error ?? upgrade.error;
  const late = now.getTime() - upgrade.started_at.getTime() > timeoutSeconds * 1000;
  if (!FINISHED_UPGRADE_STATES.includes(state) && (late || !statuses)) {
    state = 'failed';
    error = statuses
      ? `no outcome within ${timeoutSeconds} s (last status: ${reported?.status ?? 'none'})`
      : `its management policy ${upgrade.policy} was removed before the node answered`;
  }
  const status = reported?.status ?? upgrade.status;
  if (FINISHED_UPGRADE_STATES.includes(state)) return finish(upgrade, { state, status, error }, now);
  if (state === upgrade.state && (reported?.status ?? null) === upgrade.status && error === upgrade.error)
    return { commands: [], release: false, moved: false };
  return { change: { state, status, error }, commands: [], release: false, moved: false };
}

/** The upgrade ends: its row says how, its node is given back and its policy is to go. */
function finish(
  upgrade: UpgradeRecord,
  change: Pick<UpgradeRecord, 'state' | 'status' | 'error'>,
  now: Date,
): UpgradeStep {
  return {
    change: { ...change, finished_at: now },
    commands: [removal(upgrade)],
    release: true,
    moved: true,
  };
}

function sending(upgrade: UpgradeRecord): ExchangeCommand {
  return {
    kind: 'ensure-policy',
    org: upgrade.org,
    policy: {
      name: upgrade.policy,
      nodes: [upgrade.node_id],
      version: upgrade.to_version,
      action: 'install',
      description: `upgrade ${upgrade.id} of node ${upgrade.node_id} to ${upgrade.to_version} (${upgrade.strategy})`,
      ...(upgrade.location && { location: upgrade.location }),
      ...(upgrade.allow_downgrade && { allowDowngrade: true }),
    },
  };
}

function removal(upgrade: UpgradeRecord): ExchangeCommand {
  return { kind: 'remove-policy', org: upgrade.org, name: upgrade.policy };
}
