/**
 * The rules of a rollout (seed 003, "Process"), as a pure state machine the driver feeds with
 * what the nodes reported. One group runs at a time; a group is ready once every group it
 * depends on has succeeded, and among ready groups the one declared first goes. A group is
 * prepared (its `not started` nodes sent to download) and then deployed (its `prepared` nodes
 * sent to install); each node is kept `not started | prepared | success | failure` and is never
 * sent for a phase twice, also when several groups choose it. After each phase the group's
 * criteria are judged on its full node set, counting what earlier groups did to shared nodes. A
 * failed prepare skips the deploy; the dependents of a failed group fail `due to dependency`;
 * once nothing more can run, the rollout has failed if a critical group failed, else completed.
 */
import { type RolloutEventName } from '@careen/contracts';
import { type PlannedGroup } from '../strategies/strategy-plan';
import { type DeploymentStrategy } from '@careen/contracts';
import { type PhaseCounts, unmetCriteria } from '../strategies/success-criteria';

export const NODE_STATES = ['not started', 'prepared', 'success', 'failure'] as const;
export type NodeState = (typeof NODE_STATES)[number];
export type Phase = 'prepare' | 'deploy';
export const GROUP_PHASES = ['waiting', 'preparing', 'deploying', 'succeeded', 'failed'] as const;
export type GroupPhase = (typeof GROUP_PHASES)[number];

export interface NodeRun {
  state: NodeState;
  /** The group that last sent it. */
  group?: string;
  /** The last management status its agent reported for the phase under way. */
  status?: string;
  error?: string;
  sentAt?: string;
  preparedAt?: string;
  finishedAt?: string;
}

export interface GroupRun {
  phase: GroupPhase;
  reason?: string;
  startedAt?: string;
  finishedAt?: string;
  /** The nodes sent in each phase; set once, when the phase is sent. */
  sent: Partial<Record<Phase, string[]>>;
}

export interface RolloutProgress {
  groups: Record<string, GroupRun>;
  nodes: Record<string, NodeRun>;
  /** The group being prepared or deployed. */
  current: string | null;
}

/** What the rollout said about itself and its groups, for the bus. */
export type RolloutEvent =
  | { kind: 'group'; event: 'started' | 'prepared' | 'succeeded' | 'failed'; group: string; reason?: string }
  | { kind: 'rollout'; event: RolloutEventName; reason?: string };

export type NextStep =
  | { kind: 'send'; group: string; phase: Phase; nodes: string[] }
  /** The phase under way waits for its nodes. */
  | { kind: 'wait'; group: string; phase: Phase }
  | { kind: 'finished'; outcome: 'completed' | 'failed'; reason?: string };

/** A node's answer to a phase: done well, or failed with why. */
export type NodeOutcome = { ok: true } | { ok: false; error: string };

/** The group being prepared or deployed, its phase, and the nodes sent for it (once it is sent). */
export function phaseUnderWay(
  progress: RolloutProgress,
): { group: string; phase: Phase; sent: string[] | undefined } | undefined {
  if (!progress.current) return undefined;
  const run = progress.groups[progress.current]!;
  const phase: Phase = run.phase === 'preparing' ? 'prepare' : 'deploy';
  return { group: progress.current, phase, sent: run.sent[phase] };
}

export function initialProgress(plan: readonly PlannedGroup[]): RolloutProgress {
  const nodes: Record<string, NodeRun> = {};
  for (const group of plan) for (const node of group.nodes) nodes[node] ??= { state: 'not started' };
  return {
    groups: Object.fromEntries(plan.map((group) => [group.name, { phase: 'waiting', sent: {} }])),
    nodes,
    current: null,
  };
}

export class RolloutEngine {
  private readonly planned: Map<string, PlannedGroup>;

  constructor(
    private readonly strategy: DeploymentStrategy,
    plan: readonly PlannedGroup[],
  ) {
    this.planned = new Map(plan.map((group) => [group.name, group]));
  }

  /**
   * What to do now. A phase due to be sent is recorded as sent (its nodes and the time) in
   * `progress` before it is answered, so that after a crash the same nodes are asked, once.
   */
  next(progress: RolloutProgress, now: Date, events: RolloutEvent[] = []): NextStep {
    const underWay = phaseUnderWay(progress);
    if (underWay) {
      if (underWay.sent) return { kind: 'wait', group: underWay.group, phase: underWay.phase };
      return this.send(progress, underWay.group, underWay.phase, now);
    }
    this.failBlocked(progress, now, events);
    const ready = this.strategy.groups.find(
      (group) =>
        progress.groups[group.name]!.phase === 'waiting' &&
        group.depends_on.every((dependency) => progress.groups[dependency]!.phase === 'succeeded'),
    );
    if (ready) {
      Object.assign(progress.groups[ready.name]!, { phase: 'preparing', startedAt: now.toISOString() });
      progress.current = ready.name;
      events.push({ kind: 'group', event: 'started', group: ready.name });
      return this.send(progress, ready.name, 'prepare', now);
    }
    const criticalFailed = this.strategy.groups
      .filter((group) => group.critical && progress.groups[group.name]!.phase === 'failed')
      .map((group) => group.name);
    const failed = Object.values(progress.groups).filter((group) => group.phase === 'failed').length;
    const finished: NextStep =
      criticalFailed.length > 0
        ? {
            kind: 'finished',
            outcome: 'failed',
            reason: `critical group(s) failed: ${criticalFailed.join(', ')}`,
          }
        : {
            kind: 'finished',
            outcome: 'completed',
            ...(failed > 0 && { reason: `${failed} non-critical group(s) failed` }),
          };
    events.push({
      kind: 'rollout',
      event: finished.outcome,
      ...(finished.reason && { reason: finished.reason }),
    });
    return finished;
  }

  /**
   * The nodes' answers to the current phase (every node sent is answered: the driver turns a
   * node that ran out of time into a failure). Judges the group and moves it on.
   */
  finishPhase(
    progress: RolloutProgress,
    outcomes: ReadonlyMap<string, NodeOutcome>,
    now: Date,
    events: RolloutEvent[] = [],
  ): void {
    const underWay = phaseUnderWay(progress);
    if (!underWay) throw new Error('no phase is under way');
    const { group: name, phase } = underWay;
    const group = progress.groups[name]!;
    const at = now.toISOString();
    this.settle(progress, underWay.sent ?? [], phase, outcomes, at, true);
    const unmet = unmetCriteria(
      this.strategyGroup(name).success_criteria,
      this.counts(progress, name, phase),
    );
    if (unmet.length > 0) {
      const reason = `${phase} did not meet the success criteria: ${unmet.join('; ')}`;
      this.fail(progress, name, reason, now, events);
    } else if (phase === 'prepare') {
      group.phase = 'deploying';
      events.push({ kind: 'group', event: 'prepared', group: name });
    } else {
      Object.assign(group, { phase: 'succeeded', finishedAt: at });
      events.push({ kind: 'group', event: 'succeeded', group: name });
    }
    if (group.phase !== 'deploying') progress.current = null;
  }

  /**
   * The rollout is cancelled: the nodes of the phase under way that answered keep what they
   * reported, the others stay as they were, and the group fails.
   */
  cancel(
    progress: RolloutProgress,
    outcomes: ReadonlyMap<string, NodeOutcome>,
    now: Date,
    events: RolloutEvent[] = [],
  ): void {
    const underWay = phaseUnderWay(progress);
    if (!underWay) return;
    const { group: name, phase } = underWay;
    this.settle(progress, underWay.sent ?? [], phase, outcomes, now.toISOString(), false);
    this.fail(progress, name, `the rollout was cancelled during its ${phase}`, now, events);
    progress.current = null;
  }

  /** The group's nodes counted for its criteria after `phase`. */
  counts(progress: RolloutProgress, name: string, phase: Phase): PhaseCounts {
    const nodes = this.planned.get(name)!.nodes.map((node) => progress.nodes[node]!.state);
    const succeeded: NodeState[] = phase === 'prepare' ? ['prepared', 'success'] : ['success'];
    return {
      total: nodes.length,
      successful: nodes.filter((state) => succeeded.includes(state)).length,
      failed: nodes.filter((state) => state === 'failure').length,
    };
  }

  private send(progress: RolloutProgress, name: string, phase: Phase, now: Date): NextStep {
    const wanted: NodeState = phase === 'prepare' ? 'not started' : 'prepared';
    const nodes = this.planned.get(name)!.nodes.filter((node) => progress.nodes[node]!.state === wanted);
    progress.groups[name]!.sent[phase] = nodes;
    for (const node of nodes) {
      const run = progress.nodes[node]!;
      Object.assign(run, { group: name, sentAt: now.toISOString() });
      delete run.status;
    }
    return { kind: 'send', group: name, phase, nodes };
  }

  /** Records the answers of `nodes`; unanswered ones fail when `unansweredFail`, else stay as they were. */
  private settle(
    progress: RolloutProgress,
    nodes: readonly string[],
    phase: Phase,
    outcomes: ReadonlyMap<string, NodeOutcome>,
    at: string,
    unansweredFail: boolean,
  ): void {
    for (const node of nodes) {
      const run = progress.nodes[node]!;
      const outcome =
        outcomes.get(node) ?? (unansweredFail ? { ok: false, error: 'no outcome reported' } : undefined);
      if (!outcome) continue;
      if (outcome.ok) {
        run.state = phase === 'prepare' ? 'prepared' : 'success';
        delete run.error;
        if (phase === 'prepare') run.preparedAt = at;
        else run.finishedAt = at;
      } else Object.assign(run, { state: 'failure', error: outcome.error, finishedAt: at });
    }
  }

  /** Fails every waiting group with a failed dependency, and their dependents in turn. */
  private failBlocked(progress: RolloutProgress, now: Date, events: RolloutEvent[]): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const group of this.strategy.groups) {
        if (progress.groups[group.name]!.phase !== 'waiting') continue;
        const failed = group.depends_on.find((dependency) => progress.groups[dependency]!.phase === 'failed');
        if (!failed) continue;
        this.fail(progress, group.name, `due to dependency: group "${failed}" failed`, now, events);
        changed = true;
      }
    }
  }

  private fail(
    progress: RolloutProgress,
    name: string,
    reason: string,
    now: Date,
    events: RolloutEvent[],
  ): void {
    Object.assign(progress.groups[name]!, { phase: 'failed', reason, finishedAt: now.toISOString() });
    events.push({ kind: 'group', event: 'failed', group: name, reason });
  }

  private strategyGroup(name: string) {
    return this.strategy.groups.find((group) => group.name === name)!;
  }
}
