/**
 * Moves one rollout forward under its row lock: removes the policy of a finished phase, sends
 * the phase the engine asks for as a node-targeted management policy (created once: after a
 * restart the same nodes are found asked, and are not asked again), reads the nodes' answers,
 * ends a phase once every node answered or its time ran out, and carries out a cancel once no
 * node is in the middle of a step. Agents inside HA groups still ask the agbot before they
 * install, so a rollout never takes two members of a group down at once.
 */
import { type EntityManager } from 'typeorm';
import { eachOf } from '../driver/each-of';
import { type FleetGateway, type PolicyStatus } from '../fleet/fleet-gateway';
import { type PhaseObserver } from '../orchestrator-metrics';
import { MID_STEP, phaseOutcome } from './phase-outcome';
import {
  type NodeOutcome,
  type Phase,
  phaseUnderWay,
  type RolloutEvent,
  RolloutEngine,
} from './rollout-engine';
import { type RolloutEvents } from './rollout-events';
import { phasePolicyName, rolloutHolder, type RolloutRecord } from './rollout-record';
import { releaseNodes, type RolloutStore } from './rollout-store';

export class RolloutDriver {
  constructor(
    private readonly store: RolloutStore,
    private readonly fleet: FleetGateway,
    private readonly events: RolloutEvents,
    private readonly phases?: PhaseObserver,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** One look at every rollout under way; true when any moved on. One that fails holds up no other. */
  pass(): Promise<boolean> {
    return eachOf(this.store.drivable(), async (id) => {
      // A phase that just ended leaves its policy to remove: the next look, at once, removes it
      // and sends what comes next.
      let look = await this.drive(id);
      let moved = look.moved;
      while (look.removals) {
        look = await this.drive(id);
        moved = true;
      }
      return moved;
    });
  }

  /**
   * One look at the rollout: whether it moved on (a phase sent or ended, the rollout over), and
   * whether it left policies to remove.
   */
  drive(id: string): Promise<{ moved: boolean; removals: boolean }> {
    return this.store.transaction(async (manager) => {
      const record = await this.store.lock(manager, id);
      if (!record) return { moved: false, removals: false };
      const stored = snapshot(record);
      for (const name of record.removals) await this.fleet.removePolicy(record.org, name);
      const hadRemovals = record.removals.length > 0;
      record.removals = [];
      const events: RolloutEvent[] = [];
      let moved = hadRemovals;
      if (record.state === 'running') moved = (await this.advance(record, events)) || moved;
      else if (record.state === 'cancelling') moved = (await this.cancel(manager, record, events)) || moved;
      if (record.finishedAt && ['completed', 'failed'].includes(record.state))
        await releaseNodes(manager, rolloutHolder(record.id));
      // A look that changed nothing (the nodes still at it, their statuses as before) writes nothing.
      if (snapshot(record) !== stored) await this.store.save(manager, record);
      await this.events.write(manager, record, events);
      return { moved, removals: record.removals.length > 0 };
    });
  }

  /** Steps the engine until it must wait for nodes or the rollout is over. */
  private async advance(record: RolloutRecord, events: RolloutEvent[]): Promise<boolean> {
    const engine = new RolloutEngine(record.document, record.plan.groups);
    let moved = false;
    for (;;) {
      const now = this.clock();
      const step = engine.next(record.progress, now, events);
      if (step.kind === 'finished') {
        Object.assign(record, { state: step.outcome, reason: step.reason ?? null, finishedAt: now });
        return true;
      }
      const policy = phasePolicyName(record, step.group, step.phase);
      if (step.kind === 'send') {
        moved = true;
        if (step.nodes.length === 0) {
          engine.finishPhase(record.progress, new Map(), now, events);
          continue;
        }
        await this.fleet.ensurePolicy(record.org, {
          name: policy,
          nodes: step.nodes,
          version: record.targetVersion,
          action: step.phase === 'prepare' ? 'download' : 'install',
          description: `rollout ${record.id} of strategy ${record.strategy} v${record.strategyVersion}: ${step.phase} group ${step.group}`,
        });
        return moved;
      }
      const outcomes = await this.answers(engine, record, policy, step.group, step.phase, now);
      if (!outcomes) return moved;
      engine.finishPhase(record.progress, outcomes, now, events);
      this.phases?.phaseEnded(
        step.phase,
        (now.getTime() - this.sentAt(record, step.group, step.phase)) / 1000,
      );
      // The phase's policy goes before anything more is sent (an agent refuses a second upgrade
      // policy beside one it enacted): the answers are stored with the removal to do, and the
      // next pass, at once, removes it and goes on.
      record.removals.push(policy);
      return true;
    }
  }

  /**
   * The nodes' answers to the phase under way, recording each node's last status and each
   * answer as it arrives; undefined while any node is still at it and the phase has time left.
   */
  private async answers(
    engine: RolloutEngine,
    record: RolloutRecord,
    policy: string,
    group: string,
    phase: Phase,
    now: Date,
  ): Promise<Map<string, NodeOutcome> | undefined> {
    const sent = record.progress.groups[group]!.sent[phase] ?? [];
    const statuses = await this.fleet.statuses(record.org, policy);
    const outcomes = this.observe(record, statuses, phase);
    for (const [node, outcome] of outcomes) engine.recordAnswer(record.progress, node, outcome, now);
    if (outcomes.size === sent.length) return outcomes;
    const sentAt = this.sentAt(record, group, phase);
    const gone = statuses === undefined;
    if (!gone && now.getTime() - sentAt < record.phaseTimeoutSeconds * 1000) return undefined;
    for (const node of sent)
      if (!outcomes.has(node)) {
        const last = record.progress.nodes[node]!.status;
        outcomes.set(node, {
          ok: false,
          error: gone
            ? `its management policy ${policy} was removed before it answered`
            : `no outcome within ${record.phaseTimeoutSeconds} s (last status: ${last ?? 'none'})`,
        });
      }
    return outcomes;
  }

  private sentAt(record: RolloutRecord, group: string, phase: Phase): number {
    const first = record.progress.groups[group]!.sent[phase]![0]!;
    return Date.parse(record.progress.nodes[first]!.sentAt!);
  }

  /** Records each sent node's last status; answers the nodes that have finished the phase. */
  private observe(
    record: RolloutRecord,
    statuses: readonly PolicyStatus[] | undefined,
    phase: Phase,
  ): Map<string, NodeOutcome> {
    const outcomes = new Map<string, NodeOutcome>();
    for (const reported of statuses ?? []) {
      const run = record.progress.nodes[reported.node];
      if (!run) continue;
      run.status = reported.status;
      const outcome = phaseOutcome(phase, reported);
      if (outcome) outcomes.set(reported.node, outcome);
    }
    return outcomes;
  }

  /**
   * A cancel: the phase under way is paused at the exchange (nodes that have not started wait),
   * and once no node is in the middle of a step what they reported is kept, the policy removed
   * and the nodes given back.
   */
  private async cancel(
    manager: EntityManager,
    record: RolloutRecord,
    events: RolloutEvent[],
  ): Promise<boolean> {
    const now = this.clock();
    const engine = new RolloutEngine(record.document, record.plan.groups);
    const underWay = phaseUnderWay(record.progress);
    let outcomes = new Map<string, NodeOutcome>();
    if (underWay?.sent) {
      const policy = phasePolicyName(record, underWay.group, underWay.phase);
      await this.fleet.setPaused(record.org, policy, true);
      const statuses = await this.fleet.statuses(record.org, policy);
      outcomes = this.observe(record, statuses, underWay.phase);
      if ((statuses ?? []).some((reported) => MID_STEP.includes(reported.status))) return false;
      record.removals.push(policy);
    }
    engine.cancel(record.progress, outcomes, now, events);
    Object.assign(record, { state: 'cancelled', finishedAt: now });
    events.push({ kind: 'rollout', event: 'cancelled', ...(record.reason && { reason: record.reason }) });
    await releaseNodes(manager, rolloutHolder(record.id));
    return true;
  }
}

/** What a pass may change of a rollout, to tell whether it did. */
function snapshot(record: RolloutRecord): string {
  return JSON.stringify([record.state, record.reason, record.progress, record.removals, record.finishedAt]);
}
