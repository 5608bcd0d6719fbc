/**
 * What the maintenance workflow works on and what it asks for: the session's plan (hosts,
 * instances, projects), its progress (the part that is stored and survives a restart), the
 * inputs it reacts to and the commands it gives. Plain data, JSON all the way down, so the
 * progress can be stored as it is and a restarted replica carries on from it.
 */
import {
  type AdminState,
  type InstanceAction,
  type ProjectState,
  type RepliedState,
  type ReplyTimeoutPolicy,
  type SessionState,
} from '@careen/contracts';

export interface PlannedHost {
  id: string;
  haGroup: string | null;
}

/** A workload on a host; its project is its deployment policy's. */
export interface PlannedInstance {
  id: string;
  project: string;
  host: string;
}

export interface PlannedProject {
  id: string;
  /** Someone listens to its events: it is asked, and waited for. */
  subscribed: boolean;
  replyTimeoutSeconds: number;
  /** What a NACK or a missing reply means for this project's part. */
  onNoAck: ReplyTimeoutPolicy;
}

/**
 * An instance group its project's VNF manager declared, with the session's instances in it: at
 * most `maxImpacted` of them on hosts under way at once, and `recoverySeconds` after a host of
 * theirs is done before the next is started.
 */
export interface PlannedInstanceGroup {
  id: string;
  project: string;
  maxImpacted: number;
  recoverySeconds: number;
  instances: readonly string[];
}

/** What a project declared of one of the session's instances (Fenix's instance constraints). */
export interface InstanceLimits {
  /** Seconds of notice its project needs: the least time to answer a host's state about it. */
  leadSeconds: number;
  /** Seconds it may be out of service: a host that keeps it out longer is noted. */
  maxInterruptionSeconds: number;
  /** The action its project said it would answer (a different answer is noted). */
  migrationType: string;
}

export interface SessionPlan {
  hosts: readonly PlannedHost[];
  instances: readonly PlannedInstance[];
  projects: readonly PlannedProject[];
  /** When the workflow starts: the MAINTENANCE replies are due by then. */
  actionsAt: string;
  /**
   * No time was set: the workflow starts as soon as every MAINTENANCE ask is answered, and at
   * `actionsAt` (the reply timeout after the start) at the latest.
   */
  startWhenReady?: boolean;
  /** Hosts of different HA groups maintained at once; hosts of one group go one at a time. */
  maxParallelHosts: number;
  /** Projects whose workloads the hosts left in service cannot hold: asked to DOWN_SCALE first. */
  downScaleProjects?: string[];
  /** The declared instance groups the session's instances are in. */
  instanceGroups?: readonly PlannedInstanceGroup[];
  /** The declared constraints of the session's instances, by instance id. */
  instanceLimits?: Readonly<Record<string, InstanceLimits>>;
}

export const HOST_PHASES = [
  /** Not started. */
  'waiting',
  /** Asked the agbot for the host's slot in its HA group. */
  'slot',
  /** Its projects were told PREPARE_MAINTENANCE or PLANNED_MAINTENANCE; their replies are awaited. */
  'preparing',
  /** Cordoned: its workloads are being placed elsewhere. */
  'evacuating',
  /** Empty, out of service, the host action under way. */
  'in-maintenance',
  /** Back in service (uncordoned); it keeps its HA group's slot until it runs its workloads again. */
  'returning',
  'done',
  /**
   * Left out before it was taken out of service: a project's NACK or missing reply under
   * `skip-host`, or the session ended first.
   */
  'skipped',
  /** Out of service (cordoned or in maintenance) when the session ended: put back unfinished. */
  'interrupted',
] as const;
export type HostPhase = (typeof HOST_PHASES)[number];

export interface HostProgress {
  phase: HostPhase;
  haGroup: string | null;
  since: string;
  /** Why it was skipped or interrupted. */
  reason?: string;
  /** The phase it was interrupted in. */
  interruptedIn?: HostPhase;
}

/** `cancelled`: the session ended before the reply came. */
export const ASK_ANSWERS = ['pending', 'ack', 'nack', 'timeout', 'cancelled'] as const;
export type AskAnswer = (typeof ASK_ANSWERS)[number];

/** A state told to a project that waits for its reply. */
export interface Ask {
  project: string;
  state: RepliedState;
  /** The host it is about; null for the session-wide states. */
  host: string | null;
  askedAt: string;
  deadline: string;
  answer: AskAnswer;
  answeredAt?: string;
  instanceActions?: Record<string, InstanceAction>;
}

export interface SessionProgress {
  state: SessionState;
  hosts: Record<string, HostProgress>;
  asks: Ask[];
  /** Held by an operator: no further host is started (no slot asked for); hosts under way finish. */
  paused?: boolean;
  /** Why the session failed. */
  failure?: string;
  /** The last tick (the clock's input): what fell due before it has been seen to. */
  tickedAt?: string;
}

/** The progress of a planned host: every host of the plan has one from the session's start. */
export function hostProgress(progress: SessionProgress, host: string): HostProgress {
  const entry = progress.hosts[host];
  if (!entry) throw new Error(`the session's progress has no host "${host}"`);
  return entry;
}

export type WorkflowInput =
  | { kind: 'tick' }
  | {
      kind: 'reply';
      project: string;
      state: RepliedState;
      ack: boolean;
      instanceActions?: Record<string, InstanceAction>;
      /** Fenix's form: one action for every instance the ask was about. */
      instanceAction?: InstanceAction;
    }
  | { kind: 'slot-granted'; host: string }
  | { kind: 'host-empty'; host: string }
  | { kind: 'host-action-done'; host: string }
  /** The host back in service runs every workload placement gave it after its uncordon. */
  | { kind: 'host-serving'; host: string }
  /** The host back in service did not run them within `seconds`: `missing` says what it lacks. */
  | { kind: 'serve-timeout'; host: string; seconds: number; missing: string }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'abort' };

export type WorkflowCommand =
  | {
      kind: 'tell-project';
      project: string;
      state: ProjectState;
      /** The project's instances the state is about. */
      instances: string[];
      host: string | null;
      /** When the reply is due; absent for a state that waits for none. */
      deadline?: string;
      allowedActions?: InstanceAction[];
    }
  | { kind: 'tell-admin'; host: string; state: AdminState }
  | { kind: 'take-slot'; host: string }
  | { kind: 'release-slot'; host: string }
  | { kind: 'cordon'; host: string }
  | { kind: 'uncordon'; host: string }
  | { kind: 'start-host-action'; host: string };

/** Something the session's timeline should say that no command shows. */
export interface WorkflowNote {
  project: string | null;
  host: string | null;
  message: string;
  detail?: Record<string, unknown>;
}

export interface WorkflowStep {
  progress: SessionProgress;
  commands: WorkflowCommand[];
  notes?: WorkflowNote[];
}
