/**
 * Decides what the agent does about the node management policies it knows (docs/domain.md,
 * Node management policies and agent upgrades):
 * which apply (the exchange's own selection rule), which one wins among conflicting ones (the
 * one taken up first; among ones arriving together the newest), what version each means
 * (`current` follows the newest package), whether there is anything to do (already at it —
 * at least at it, or exactly at it when the policy allows a downgrade —, failed here before), and the random moment in [start, start + duration) to do it at, or
 * when to try again after a failed download. A paused policy's enactment that has not started
 * waits (`paused`); once resumed it picks a fresh moment in the window the resume set. An
 * enactment is new only when the policy's upgrade settings change: republishing or
 * re-enabling the same settings leaves what is done done.
 * Pure: the clock and the random source come in, decisions and updated records go out.
 */
import { type ManagementStatusValue, TERMINAL_STATUSES } from '@careen/contracts';
import { compileSelector, type SelectableNode } from '@careen/policy';
import { jittered } from '../core/backoff';
import { type RandomSource } from '../core/clock';
import { type ManagementPolicy } from '../exchange/exchange.types';
import { type EnactmentRecord } from './enactment-record';
import { alreadyAt, targetVersion } from './target-version';

export interface PlanInput {
  node: SelectableNode;
  policies: readonly ManagementPolicy[];
  packages: readonly string[];
  running: string;
  failed: readonly string[];
  records: Readonly<Record<string, EnactmentRecord>>;
  /** The policy whose upgrade is under way: left to it, untouched. */
  inProgress?: string;
  now: Date;
}

/** A status to write now, with nothing else to do for that policy. */
export interface Report {
  nmp: string;
  status: Extract<ManagementStatusValue, 'conflict' | 'no-action-required' | 'precheck-failed' | 'paused'>;
  version: string | null;
  error?: string;
}

/** An upgrade to carry out at `moment`. */
export interface Enactment {
  nmp: string;
  policy: ManagementPolicy;
  target: string;
  moment: Date;
  action: 'install' | 'download';
  /** Where to fetch the package from instead of the exchange. */
  location?: string;
}

export interface Plan {
  reports: Report[];
  /** The upgrade to do next (the earliest moment): one policy at a time. */
  next: Enactment | undefined;
  /** Every enactment due, in order, for a caller that wants to know what is waiting. */
  waiting: Enactment[];
  records: Record<string, EnactmentRecord>;
}

/** An applicable policy with the record of its enactment. */
interface TrackedPolicy {
  policy: ManagementPolicy;
  record: EnactmentRecord;
}

const DONE_FOR_TARGET: readonly (ManagementStatusValue | null)[] = [...TERMINAL_STATUSES, 'downloaded'];
/** Statuses of an enactment that has not started: a pause holds it, a resume moves its moment. */
const NOT_STARTED: readonly (ManagementStatusValue | null)[] = [null, 'waiting', 'paused'];
const DOWNLOAD_RETRY = { baseMs: 60_000, maxMs: 30 * 60_000 };

export class NmpPlanner {
  constructor(private readonly random: RandomSource) {}

  plan(input: PlanInput): Plan {
    const records: Record<string, EnactmentRecord> = {};
    const known = new Set(input.policies.map((policy) => policy.name));
    // A deleted policy is forgotten; one merely no longer applying keeps its place in line.
    for (const [name, record] of Object.entries(input.records))
      if (known.has(name)) records[name] = { ...record };

    const applicable = input.policies.filter(
      (policy) => policy.enabled && policy.agentUpgradePolicy !== null && compileSelector(policy)(input.node),
    );
    const tracked: TrackedPolicy[] = [];
    for (const policy of applicable) {
      const settings = settingsOf(policy);
      let record = records[policy.name];
      if (!record || record.settings !== settings) {
        record = {
          nmp: policy.name,
          lastUpdated: policy.lastUpdated,
          settings,
          firstSeenAt: record?.firstSeenAt ?? input.now.toISOString(),
          target: null,
          status: record?.status === 'reset' ? 'reset' : null,
          moment: null,
        };
        records[policy.name] = record;
      } else record.lastUpdated = policy.lastUpdated;
      tracked.push({ policy, record });
    }

    const winner = this.winner(tracked);
    const reports: Report[] = [];
    const waiting: Enactment[] = [];
    for (const { policy, record } of tracked) {
      if (policy.name === input.inProgress) continue;
      if (winner && record.settings !== settingsOf(winner)) {
        if (record.status !== 'conflict') {
          reports.push({
            nmp: policy.name,
            status: 'conflict',
            version: null,
            error: `conflicts with management policy "${winner.name}", enacted on this node first`,
          });
          record.status = 'conflict';
        }
        continue;
      }
      if (record.status === 'conflict') record.status = null;
      const target = targetVersion(policy.agentUpgradePolicy!.atLeastVersion, input.packages);
      if (target === null) continue;
      if (record.target !== target)
        Object.assign(record, {
          target,
          status: record.status === 'reset' ? 'reset' : null,
          moment: null,
          downloadFailures: 0,
        });
      if (record.status === 'download-failed') this.retryDownloadLater(record, input.now);
      if (DONE_FOR_TARGET.includes(record.status)) continue;
      if (alreadyAt(input.running, target, policy.agentUpgradePolicy!.allowDowngrade === true)) {
        reports.push({ nmp: policy.name, status: 'no-action-required', version: target });
        record.status = 'no-action-required';
        continue;
      }
      if (input.failed.includes(target) && record.status !== 'reset') {
        const error = `version ${target} failed on this node before; it is not tried again until a newer one or a reset`;
        reports.push({ nmp: policy.name, status: 'precheck-failed', version: target, error });
        record.status = 'precheck-failed';
        continue;
      }
      if (policy.paused) {
        if (record.status !== 'paused') reports.push({ nmp: policy.name, status: 'paused', version: target });
        record.status = 'paused';
        continue;
      }
      this.followResume(policy, record);
      record.moment ??= this.moment(policy, record).toISOString();
      waiting.push({
        nmp: policy.name,
        policy,
        target,
        moment: new Date(record.moment),
        action: policy.agentUpgradePolicy!.action,
        ...(policy.agentUpgradePolicy!.location && { location: policy.agentUpgradePolicy!.location }),
      });
    }
    waiting.sort((a, b) => a.moment.getTime() - b.moment.getTime() || a.nmp.localeCompare(b.nmp));
    return { reports, next: waiting[0], waiting, records };
  }

  /** The policy taken up first (not in conflict); when none was, the newest. */
  private winner(tracked: readonly TrackedPolicy[]): ManagementPolicy | undefined {
    const [first] = tracked
      .filter(({ record }) => record.status !== null && record.status !== 'conflict')
      .sort(
        (a, b) =>
          a.record.firstSeenAt.localeCompare(b.record.firstSeenAt) ||
          a.policy.name.localeCompare(b.policy.name),
      );
    if (first) return first.policy;
    return tracked
      .map(({ policy }) => policy)
      .sort((a, b) => b.lastUpdated.localeCompare(a.lastUpdated) || a.name.localeCompare(b.name))[0];
  }

  /**
   * A download that failed (the exchange or the link was down after every retry) says nothing
   * about the package: the enactment is taken up again after a pause, doubling from a minute
   * to half an hour with each failure, jittered so a fleet that failed together comes back apart.
   */
  private retryDownloadLater(record: EnactmentRecord, now: Date): void {
    const failures = (record.downloadFailures ?? 0) + 1;
    const pauseMs = jittered(
      Math.min(DOWNLOAD_RETRY.maxMs, DOWNLOAD_RETRY.baseMs * 2 ** (failures - 1)),
      this.random,
      0.5,
    );
    Object.assign(record, {
      status: null,
      downloadFailures: failures,
      moment: new Date(now.getTime() + pauseMs).toISOString(),
    });
  }

  /**
   * A resume moves the moment of an enactment that had not started into its window, once: the
   * record remembers which resume its moment was drawn for.
   */
  private followResume(policy: ManagementPolicy, record: EnactmentRecord): void {
    const resume = policy.resumeWindow;
    if (record.status === 'paused') record.status = null;
    if (!resume || record.window === resume.start || !NOT_STARTED.includes(record.status)) return;
    Object.assign(record, { window: resume.start, moment: null, status: null });
  }

  private moment(policy: ManagementPolicy, record: EnactmentRecord): Date {
    const resume = policy.resumeWindow;
    const { start, duration } =
      resume && record.window === resume.start ? resume : policy.agentUpgradePolicy!;
    const from = start === 'now' ? Date.parse(record.firstSeenAt) : Date.parse(start);
    return new Date(from + Math.floor(this.random() * Math.max(0, duration) * 1000));
  }
}

/**
 * The upgrade settings, canonical. Optional settings are appended only when set, so a record
 * kept by an agent that did not know them still matches: a policy that does not allow a
 * downgrade keeps its enactment, and allowing one is a new enactment.
 */
function settingsOf(policy: ManagementPolicy): string {
  const { atLeastVersion, start, duration, action, location, allowDowngrade } = policy.agentUpgradePolicy!;
  return JSON.stringify([
    atLeastVersion,
    start,
    duration,
    action,
    ...(location ? [location] : []),
    ...(allowDowngrade === true ? [{ allowDowngrade: true }] : []),
  ]);
}
