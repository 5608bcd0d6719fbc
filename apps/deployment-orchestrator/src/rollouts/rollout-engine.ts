/**
 * The rules of a rollout, Shipyard's, as a pure state machine the driver feeds with what the
 * nodes reported. One group runs at a time, in processing order: stage by stage (Shipyard's
 * topological generations), declaration order within a stage; a group runs once every group it
 * depends on has succeeded. A group is prepared (the `not started` nodes it sends are sent to
 * download) and then deployed (its `prepared` ones sent to install); each node is sent only by
 * the group the plan gave it to, the first in processing order that chooses it, and is kept
 * `not started | prepared | success | failure`, each answer recorded as it arrives. After each
 * phase the group's criteria are judged on its full node set, a node not successful counting
 * as failed, as Shipyard counts; a group without nodes passes. A failed prepare skips the
 * deploy; the dependents of a failed group fail `due to dependency`; once nothing more can
 * run, the rollout has failed if a critical group failed, else completed. A cancel leaves the
 * groups that had not started `cancelled`.
 */
import { dependencyStages, type RolloutEventName } from '@careen/contracts';
import { type PlannedGroup } from '../strategies/strategy-plan';
import { type DeploymentStrategy } from '@careen/contracts';
import { type PhaseCounts, unmetCriteria } from '../strategies/success-criteria';

export const NODE_STATES = ['not started', 'prepared', 'success', 'failure'] as const;
export type NodeState = (typeof NODE_STATES)[number];
export type Phase = 'prepare' | 'deploy';
export const GROUP_PHASES = [
  'waiting',
  'preparing',
  'deploying',
  'succeeded',
  'failed',
  'cancelled',
] as const;
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

/** A group's run in the progress; every planned group has one from the start. */
export function groupRun(progress: RolloutProgress, group: string): GroupRun {
  const run = progress.groups[group];
  if (!run) throw new Error(`the rollout's progress has no group "${group}"`);
  return run;
}

/** A node's run in the progress; every planned node has one from the start. */
export function nodeRun(progress: RolloutProgress, node: string): NodeRun {
  const run = progress.nodes[node];
  if (!run) throw new Error(`the rollout's progress has no node "${node}"`);
  return run;
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
  const run = groupRun(progress, progress.current);
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
  private readonly order: string[];

  constructor(
    private readonly strategy: DeploymentStrategy,
    plan: readonly PlannedGroup[],
  ) {
    this.planned = new Map(plan.map((group) => [group.name, group]));
    this.order = dependencyStages(strategy.groups).flat();
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
    const ready = this.order
      .map((name) => this.strategyGroup(name))
      .find(
        (group) =>
          groupRun(progress, group.name).phase === 'waiting' &&
          group.depends_on.every((dependency) => groupRun(progress, dependency).phase === 'succeeded'),
      );
    if (ready) {
      Object.assign(groupRun(progress, ready.name), { phase: 'preparing', startedAt: now.toISOString() });
      progress.current = ready.name;
      events.push({ kind: 'group', event: 'started', group: ready.name });
      return this.send(progress, ready.name, 'prepare', now);
    }
    const criticalFailed = this.strategy.groups
      .filter((group) => group.critical && groupRun(progress, group.name).phase === 'failed')
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
    const group = groupRun(progress, name);
    const at = now.toISOString();
    this.settle(progress, underWay.sent ?? [], phase, outcomes, at, true);
    const unmet = unmetCriteria(
      this.strategyGroup(name).success_criteria,
      this.judged(progress, name, phase),
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
   * One node's answer to the phase under way, recorded as it arrives so that the report shows
   * it at once; the group is judged only once every node sent has answered. A node not sent in
   * that phase, or already answered, is left as it is.
   */
  recordAnswer(progress: RolloutProgress, node: string, outcome: NodeOutcome, now: Date): boolean {
    const underWay = phaseUnderWay(progress);
    if (!underWay?.sent?.includes(node)) return false;
    return this.settle(
      progress,
      [node],
      underWay.phase,
      new Map([[node, outcome]]),
      now.toISOString(),
      false,
    );
  }

  /**
   * The rollout is cancelled: the nodes of the phase under way that answered keep what they
   * reported, the others stay as they were without the status of a policy now gone, the group
   * under way fails and the groups that had not started are cancelled.
   */
  cancel(
    progress: RolloutProgress,
    outcomes: ReadonlyMap<string, NodeOutcome>,
    now: Date,
    events: RolloutEvent[] = [],
  ): void {
    const underWay = phaseUnderWay(progress);
    if (underWay) {
      const { group: name, phase } = underWay;
      this.settle(progress, underWay.sent ?? [], phase, outcomes, now.toISOString(), false);
      const wanted = waitingFor(phase);
      for (const node of underWay.sent ?? [])
        if (nodeRun(progress, node).state === wanted) delete nodeRun(progress, node).status;
      this.fail(progress, name, `the rollout was cancelled during its ${phase}`, now, events);
      progress.current = null;
    }
    for (const run of Object.values(progress.groups))
      if (run.phase === 'waiting')
        Object.assign(run, { phase: 'cancelled', reason: 'the rollout was cancelled before it started' });
  }

  /** The group's nodes after `phase`: how many, how many did it, how many failed outright. */
  counts(progress: RolloutProgress, name: string, phase: Phase): PhaseCounts {
    const nodes = this.planned.get(name)!.nodes.map((node) => nodeRun(progress, node).state);
    const succeeded: NodeState[] = phase === 'prepare' ? ['prepared', 'success'] : ['success'];
    return {
      total: nodes.length,
      successful: nodes.filter((state) => succeeded.includes(state)).length,
      failed: nodes.filter((state) => state === 'failure').length,
    };
  }

  /**
   * The counts the criteria judge, as Shipyard counts them: every node of the group that did
   * not finish the phase counts as failed, also one another group sends and never got to.
   */
  judged(progress: RolloutProgress, name: string, phase: Phase): PhaseCounts {
    const counts = this.counts(progress, name, phase);
    return { ...counts, failed: counts.total - counts.successful };
  }

  private send(progress: RolloutProgress, name: string, phase: Phase, now: Date): NextStep {
    const wanted = waitingFor(phase);
    const planned = this.planned.get(name)!;
    // A plan stored before groups were given their own nodes: each sends what it chooses.
    const nodes = (planned.sends ?? planned.nodes).filter((node) => nodeRun(progress, node).state === wanted);
    groupRun(progress, name).sent[phase] = nodes;
    for (const node of nodes) {
      const run = nodeRun(progress, node);
      Object.assign(run, { group: name, sentAt: now.toISOString() });
      delete run.status;
    }
    return { kind: 'send', group: name, phase, nodes };
  }

  /**
   * Records the answers of `nodes` that have not answered the phase yet; unanswered ones fail
   * when `unansweredFail`, else stay as they were. True when any node changed.
   */
  private settle(
    progress: RolloutProgress,
    nodes: readonly string[],
    phase: Phase,
    outcomes: ReadonlyMap<string, NodeOutcome>,
    at: string,
    unansweredFail: boolean,
  ): boolean {
    let changed = false;
    for (const node of nodes) {
      const run = nodeRun(progress, node);
      if (run.state !== waitingFor(phase)) continue;
      const outcome =
        outcomes.get(node) ?? (unansweredFail ? { ok: false, error: 'no outcome reported' } : undefined);
      if (!outcome) continue;
      changed = true;
      if (outcome.ok) {
        run.state = phase === 'prepare' ? 'prepared' : 'success';
        delete run.error;
        if (phase === 'prepare') run.preparedAt = at;
        else run.finishedAt = at;
      } else Object.assign(run, { state: 'failure', error: outcome.error, finishedAt: at });
    }
    return changed;
  }

  /** Fails every waiting group with a failed dependency, and their dependents in turn. */
  private failBlocked(progress: RolloutProgress, now: Date, events: RolloutEvent[]): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const group of this.strategy.groups) {
        if (groupRun(progress, group.name).phase !== 'waiting') continue;
        const failed = group.depends_on.find(
          (dependency) => groupRun(progress, dependency).phase === 'failed',
        );
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
    Object.assign(groupRun(progress, name), { phase: 'failed', reason, finishedAt: now.toISOString() });
    events.push({ kind: 'group', event: 'failed', group: name, reason });
  }

  private strategyGroup(name: string) {
    return this.strategy.groups.find((group) => group.name === name)!;
  }
}

/** The state a node sent for `phase` is in until it answers. */
const waitingFor = (phase: Phase): NodeState => (phase === 'prepare' ? 'not started' : 'prepared');
