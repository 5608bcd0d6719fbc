/**
 * What `careen nmp watch` shows of a policy's rollout, worked out from what the exchange says:
 * every node the policy applies to, by HA group, with its status, the version it runs, its
 * error and when it was last seen; the groups a failed member halts; counts; whether the
 * rollout is over, or stopped; the nodes that wait for a package that is not published
 * (`no-package`). Pure: the answers and the time come in, the view goes out.
 */
import { type Exchange } from '@careen/api-client';
import {
  type ManagementStatusValue,
  MANAGEMENT_STATUSES,
  TERMINAL_STATUSES,
  UNHEALTHY_STATUSES,
} from '@careen/contracts';

type Schemas = Exchange.components['schemas'];

/** What the view reads of the policy, its nodes' statuses and the nodes, as the exchange answers them. */
export type WatchedPolicy = Pick<
  Schemas['ManagementPolicyResponse'],
  'name' | 'state' | 'disabledReason' | 'agentUpgradePolicy'
>;
export type WatchedStatus = Pick<
  Schemas['ManagementStatusResponse'],
  'node' | 'status' | 'version' | 'error'
>;
export type WatchedNode = Pick<Schemas['NodeResponse'], 'id' | 'haGroup' | 'status'>;
/** What the exchange's rollup says of a missing package: why, and the nodes left waiting for it. */
export type WatchedPackage = Pick<Schemas['StatusRollupResponse'], 'missingPackage' | 'noPackage'>;

export interface MemberView {
  node: string;
  status: string;
  /** The agent version the node runs. */
  version: string | null;
  error: string | null;
  lastSeen: string | null;
}

export interface GroupView {
  /** null: the nodes outside any HA group. */
  name: string | null;
  members: MemberView[];
  /** The member that halts the group: failed and not healthy again. */
  halted?: MemberView;
}

export interface RolloutView {
  policy: WatchedPolicy;
  total: number;
  final: number;
  counts: [string, number][];
  groups: GroupView[];
  /** Why no node can enact the upgrade: its package is not published. */
  missingPackage: string | null;
  /** Every node it applies to has a final status. */
  done: boolean;
}

/**
 * The version the node runs: the one its `successful` status names, else what its last status
 * report says. An agent reports the end of an install before its next status report, so the
 * report may still name the version it ran before.
 */
function runningVersion(status: WatchedStatus | undefined, node: WatchedNode | undefined): string | null {
  if (status?.status === 'successful' && status.version) return status.version;
  return node?.status?.agentVersion?.package ?? null;
}

const ORDER = new Map<string, number>(MANAGEMENT_STATUSES.map((status, index) => [status, index]));

export function buildRolloutView(
  policy: WatchedPolicy,
  appliesTo: readonly string[],
  statuses: readonly WatchedStatus[],
  nodes: readonly WatchedNode[],
  pkg: WatchedPackage = { missingPackage: null, noPackage: [] },
): RolloutView {
  const statusOf = new Map(statuses.map((status) => [status.node, status]));
  const noPackage = new Set(pkg.noPackage);
  const nodeOf = new Map(nodes.map((node) => [node.id, node]));
  const byGroup = new Map<string | null, MemberView[]>();
  const counts = new Map<string, number>();
  let final = 0;
  for (const id of [...appliesTo].sort()) {
    const status = statusOf.get(id);
    const node = nodeOf.get(id);
    const member: MemberView = {
      node: id,
      status: status?.status ?? (noPackage.has(id) ? 'no-package' : 'not reported'),
      version: runningVersion(status, node),
      error: status?.error ?? (noPackage.has(id) ? pkg.missingPackage : null),
      lastSeen: node?.status?.lastHeartbeat ?? null,
    };
    counts.set(member.status, (counts.get(member.status) ?? 0) + 1);
    if (TERMINAL_STATUSES.includes(member.status as ManagementStatusValue)) final++;
    const group = node?.haGroup ?? null;
    byGroup.set(group, [...(byGroup.get(group) ?? []), member]);
  }
  const groups = [...byGroup.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
    .map(([name, members]) => {
      const halted =
        name === null
          ? undefined
          : members.find((member) => UNHEALTHY_STATUSES.includes(member.status as ManagementStatusValue));
      return { name, members, ...(halted ? { halted } : {}) };
    });
  return {
    policy,
    total: appliesTo.length,
    final,
    counts: [...counts.entries()].sort(([a], [b]) => (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99)),
    groups,
    missingPackage: pkg.missingPackage,
    done: appliesTo.length > 0 && final === appliesTo.length,
  };
}

/**
 * How long the rest should take at the rate nodes reached a final status over the last
 * `windowMs`; undefined until that rate is known.
 */
export class EtaEstimator {
  private readonly samples: { at: number; final: number }[] = [];

  constructor(private readonly windowMs = 120_000) {}

  observe(at: Date, final: number): void {
    this.samples.push({ at: at.getTime(), final });
    while (this.samples.length > 2 && this.samples[0]!.at < at.getTime() - this.windowMs)
      this.samples.shift();
  }

  /** Seconds left for `remaining` nodes, or undefined when no progress was seen yet. */
  secondsLeft(remaining: number): number | undefined {
    if (remaining === 0) return 0;
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at === first.at || last.final <= first.final) return undefined;
    const perSecond = (last.final - first.final) / ((last.at - first.at) / 1000);
    return Math.ceil(remaining / perSecond);
  }
}
