/**
 * What the rolling-upgrade planner reads, keeps and answers, for one deployment policy. The
 * state is plain JSON so that it can be persisted after every tick and read back by whichever
 * agbot replica leads next.
 */

/** What a node reported for the policy's workload (from its status.workloads). */
export interface ReportedWorkload {
  readonly version: string;
  /** e.g. `running`, `starting`, `failed`; only `running` counts as serving. */
  readonly state: string;
}

/** One node the policy is placed on, i.e. meant to run the service. */
export interface RolloutMember {
  readonly node: string;
  readonly haGroup: string | null;
  /** The version the agbot currently asks the node to run; null when nothing is assigned yet. */
  readonly desiredVersion: string | null;
  /** The version placement wants it to run (newest in range for its arch). */
  readonly targetVersion: string;
  /** What the node last reported for this workload; null when it reported none. */
  readonly actual: ReportedWorkload | null;
  /** Whether its heartbeat is fresh; a stale node's report is not trusted. */
  readonly online: boolean;
}

export interface RolloutSettings {
  /** How many nodes outside HA groups may be changing version at once (≥ 1). */
  readonly parallelism: number;
  /** How long a member has to report the new version running before its group halts. */
  readonly memberDeadlineMs: number;
}

export interface RolloutInput extends RolloutSettings {
  readonly deploymentPolicy: string;
  readonly members: readonly RolloutMember[];
  readonly now: Date;
  /** The state the previous tick returned; undefined or {} on the first tick. */
  readonly state?: RolloutState;
}

/** A member asked to move to `version` at `since` (ISO-8601). */
export interface InFlightMember {
  readonly node: string;
  readonly version: string;
  readonly since: string;
  /** Set once the member has been reported past its deadline (nodes outside groups). */
  readonly overdue?: boolean;
}

export interface HaltedGroup {
  readonly node: string;
  readonly version: string;
  readonly reason: string;
  readonly at: string;
}

export interface GroupRolloutState {
  readonly inFlight: InFlightMember | null;
  readonly halted: HaltedGroup | null;
}

export interface RolloutState {
  /** Per HA group name. Groups with nothing in flight and not halted are left out. */
  readonly groups: Readonly<Record<string, GroupRolloutState>>;
  /** Nodes outside groups that were asked to move and have not reported it running, by node id. */
  readonly ungrouped: Readonly<Record<string, InFlightMember>>;
}

/** A version change for the lead's loop to write into the node's desired workloads. */
export interface VersionChange {
  readonly node: string;
  readonly from: string | null;
  readonly version: string;
}

export type GroupStatus =
  /** Every online member is on its target version. */
  | 'done'
  /** One member is moving. */
  | 'upgrading'
  /** A member did not come up in time; the others stay on their version until the target changes. */
  | 'halted'
  /** The only member running the service would have to stop: nothing moves. */
  | 'blocked'
  /** What is left to move is offline. */
  | 'waiting-offline';

export interface GroupReport {
  readonly group: string;
  readonly status: GroupStatus;
  readonly node?: string;
  readonly reason?: string;
  /** Members meant to run the service (the only ones counted). */
  readonly members: number;
  /** Members running their target version. */
  readonly upgraded: number;
}

export type RolloutEvent =
  | {
      readonly type: 'member-started';
      readonly node: string;
      readonly group: string | null;
      readonly version: string;
    }
  | {
      readonly type: 'member-upgraded';
      readonly node: string;
      readonly group: string | null;
      readonly version: string;
    }
  | {
      readonly type: 'member-overdue';
      readonly node: string;
      readonly group: string | null;
      readonly version: string;
      readonly reason: string;
    }
  | { readonly type: 'group-halted'; readonly group: string; readonly node: string; readonly reason: string }
  | {
      readonly type: 'member-released';
      readonly node: string;
      readonly group: string | null;
      readonly reason: string;
    };

export interface RolloutPlan {
  readonly deploymentPolicy: string;
  /** Desired-version changes to write now. Repeating a plan's changes is harmless. */
  readonly changes: readonly VersionChange[];
  readonly state: RolloutState;
  readonly groups: readonly GroupReport[];
  readonly ungrouped: {
    readonly members: number;
    readonly inFlight: number;
    readonly upgraded: number;
    /** In flight past the deadline; they keep their slot so a bad version stops spreading. */
    readonly overdue: readonly string[];
  };
  /** Transitions seen in this tick, for logs and notifications. */
  readonly events: readonly RolloutEvent[];
}
