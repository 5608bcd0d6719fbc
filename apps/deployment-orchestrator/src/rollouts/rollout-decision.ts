/**
 * One step of a rollout as a plain function of the stored rollout, what was seen of its phase
 * under way and the time: the rollout after the step, what to tell the bus, and the exchange
 * commands to carry out once the step is stored (a phase's policy to create, pause or remove).
 * It does no I/O; the driver reads the exchange before and carries the commands out after, so
 * that nothing waits on the exchange with the rollout locked.
 *
 * A phase is sent as a node-targeted management policy created once (after a restart the same
 * nodes are found asked, and are not asked again) and its time runs from when the policy is in
 * place; it ends once every node answered, or its time ran out, or the policy is gone. Its
 * policy goes before anything more is sent (an agent refuses a second upgrade policy beside one
 * it enacted): the removal comes first among the step's commands. A cancel pauses the phase under
 * way, waits until no node is in the middle of a step, keeps what the nodes reported, removes
 * the policy and gives the nodes back. Agents inside HA groups still ask the agbot before they
 * install, so a rollout never takes two members of a group down at once.
 */
import { type ExchangeCommand, type PolicyFacts } from '../driver/exchange-command';
import { type PolicyStatus } from '../fleet/fleet-gateway';
import { SOAKING } from '../fleet/soak-gateway';
import { MID_STEP, phaseOutcome } from './phase-outcome';
import {
  type NodeOutcome,
  type Phase,
  phaseUnderWay,
  type RolloutEvent,
  RolloutEngine,
} from './rollout-engine';
import { phasePolicyName, type RolloutRecord } from './rollout-record';

/** What was seen of the policy of the phase under way, the exchange's statuses read last. */
export interface RolloutObservation extends PolicyFacts {
  policy: string;
  /** Every node's status for it; undefined when the policy is gone (or was not read: refused). */
  statuses: readonly PolicyStatus[] | undefined;
}

export interface RolloutStep {
  /** The rollout after the step (the stored one is left as it was). */
  record: RolloutRecord;
  /** Whether the record changed and is to be written. */
  changed: boolean;
  /** Whether it moved on: something to carry out, or it ended. */
  moved: boolean;
  events: RolloutEvent[];
  /** To carry out in this order once the step is stored. */
  commands: ExchangeCommand[];
  /** The phases that ended, with how long each took from its policy in place to its last answer. */
  phasesEnded: { phase: Phase; seconds: number }[];
  /** The rollout ended: its nodes are given back. */
  release: boolean;
}

/** The policy of the phase under way whose statuses a step of `record` reads, if any. */
export function observedPolicy(record: RolloutRecord): string | undefined {
  if (record.state !== 'running' && record.state !== 'cancelling') return undefined;
  const underWay = phaseUnderWay(record.progress);
  return underWay?.sent && phasePolicyName(record, underWay.group, underWay.phase);
}

/** Pause or resume of the phase under way at the exchange, for an operator's pause or resume. */
export function pauseCommands(record: RolloutRecord, paused: boolean): ExchangeCommand[] {
  const underWay = phaseUnderWay(record.progress);
  if (!underWay?.sent) return [];
  const name = phasePolicyName(record, underWay.group, underWay.phase);
  return [{ kind: 'set-paused', org: record.org, name, paused }];
}

/**
 * The step of `stored` at `now`. `seen` is what was read of the phase under way's policy since
 * every earlier command was carried out; a step that needs it and has none, or has it of another
 * policy, waits for the next look.
 */
export function decideRollout(
  stored: RolloutRecord,
  seen: RolloutObservation | undefined,
  now: Date,
): RolloutStep {
  const record = structuredClone(stored);
  const step: RolloutStep = {
    record,
    changed: false,
    moved: false,
    events: [],
    commands: [],
    phasesEnded: [],
    release: false,
  };
  if (record.state === 'running') advance(step, seen, now);
  else if (record.state === 'cancelling') cancel(step, seen, now);
  step.changed = snapshot(record) !== snapshot(stored);
  step.moved = step.commands.length > 0 || record.state !== stored.state;
  return step;
}

/** Steps the engine until it must wait for nodes or the rollout is over. */
function advance(step: RolloutStep, seen: RolloutObservation | undefined, now: Date): void {
  const { record, events } = step;
  const engine = new RolloutEngine(record.document, record.plan.groups);
  for (;;) {
    const next = engine.next(record.progress, now, events);
    if (next.kind === 'finished') {
      Object.assign(record, { state: next.outcome, reason: next.reason ?? null, finishedAt: now });
      step.release = true;
      return;
    }
    const policy = phasePolicyName(record, next.group, next.phase);
    if (next.kind === 'send') {
      if (next.nodes.length === 0) {
        engine.finishPhase(record.progress, new Map(), now, events);
        continue;
      }
      step.commands.push({
        kind: 'ensure-policy',
        org: record.org,
        policy: {
          name: policy,
          nodes: next.nodes,
          version: record.targetVersion,
          action: next.phase === 'prepare' ? 'download' : 'install',
          description: `rollout ${record.id} of strategy ${record.strategy} v${record.strategyVersion}: ${next.phase} group ${next.group}`,
          ...(record.allowDowngrade && { allowDowngrade: true }),
        },
      });
      return;
    }
    if (seen?.policy !== policy) return;
    placed(record, next.group, next.phase, seen);
    const outcomes = answers(engine, record, seen, next.group, next.phase, now);
    if (!outcomes) return;
    engine.finishPhase(record.progress, outcomes, now, events);
    step.phasesEnded.push({
      phase: next.phase,
      seconds: (now.getTime() - sentAt(record, next.group, next.phase)) / 1000,
    });
    // A policy the exchange refused was never in place.
    if (seen.refused === undefined)
      step.commands.push({ kind: 'remove-policy', org: record.org, name: policy });
  }
}

/**
 * A phase's time runs from when its policy is in place: the nodes sent keep the time the
 * creation was carried out, if later than the step that sent them (the exchange was down, say).
 */
function placed(record: RolloutRecord, group: string, phase: Phase, seen: RolloutObservation): void {
  if (!seen.placedAt || seen.placedAt.getTime() <= sentAt(record, group, phase)) return;
  const at = seen.placedAt.toISOString();
  for (const node of record.progress.groups[group]?.sent[phase] ?? []) {
    const run = record.progress.nodes[node];
    if (run) run.sentAt = at;
  }
}

/**
 * The nodes' answers to the phase under way, recording each node's last status and each answer
 * as it arrives; undefined while any node is still at it and the phase has time left.
 */
function answers(
  engine: RolloutEngine,
  record: RolloutRecord,
  seen: RolloutObservation,
  group: string,
  phase: Phase,
  now: Date,
): Map<string, NodeOutcome> | undefined {
  const sent = record.progress.groups[group]?.sent[phase] ?? [];
  if (seen.refused !== undefined) {
    const error = `the exchange refused its management policy ${seen.policy}: ${seen.refused}`;
    return new Map(sent.map((node) => [node, { ok: false, error }]));
  }
  const outcomes = observe(record, seen.statuses, phase);
  for (const [node, outcome] of outcomes) engine.recordAnswer(record.progress, node, outcome, now);
  if (outcomes.size === sent.length) return outcomes;
  const gone = seen.statuses === undefined;
  if (!gone && now.getTime() - sentAt(record, group, phase) < record.phaseTimeoutSeconds * 1000)
    return undefined;
  for (const node of sent)
    if (!outcomes.has(node)) {
      const last = record.progress.nodes[node]?.status;
      outcomes.set(node, {
        ok: false,
        error: gone
          ? `its management policy ${seen.policy} was removed before it answered`
          : `no outcome within ${record.phaseTimeoutSeconds} s (last status: ${last ?? 'none'})`,
      });
    }
  return outcomes;
}

/** When the phase was sent, as its first node keeps it. */
function sentAt(record: RolloutRecord, group: string, phase: Phase): number {
  const [first] = record.progress.groups[group]?.sent[phase] ?? [];
  const at = first === undefined ? undefined : record.progress.nodes[first]?.sentAt;
  if (at === undefined) throw new Error(`the ${phase} of group ${group} was never sent`);
  return Date.parse(at);
}

/** The statuses of a node that waits for its HA group's slot, the disruption gate or a soak. */
const WAITING: readonly string[] = ['ha-waiting', SOAKING];

/** Records each sent node's last status; answers the nodes that have finished the phase. */
function observe(
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
    // Why a node waits (the agbot's refusal its agent reports with `ha-waiting`, a soak) shows
    // while it waits; a failure's error is the engine's to record.
    else if (WAITING.includes(reported.status) && reported.error) run.error = reported.error;
    else if (run.state !== 'failure') delete run.error;
  }
  return outcomes;
}

/**
 * A cancel: the phase under way is paused at the exchange first (nodes that have not started
 * wait), and once no node is in the middle of a step what they reported is kept, the policy
 * removed and the nodes given back.
 */
function cancel(step: RolloutStep, seen: RolloutObservation | undefined, now: Date): void {
  const { record, events } = step;
  const engine = new RolloutEngine(record.document, record.plan.groups);
  const underWay = phaseUnderWay(record.progress);
  let outcomes = new Map<string, NodeOutcome>();
  if (underWay?.sent) {
    const policy = phasePolicyName(record, underWay.group, underWay.phase);
    if (seen?.policy !== policy) return;
    // A policy the exchange refused was never in place: there is nothing to pause or remove.
    if (seen.refused === undefined) {
      if (!seen.paused) {
        step.commands.push({ kind: 'set-paused', org: record.org, name: policy, paused: true });
        return;
      }
      outcomes = observe(record, seen.statuses, underWay.phase);
      if ((seen.statuses ?? []).some((reported) => MID_STEP.includes(reported.status))) return;
      step.commands.push({ kind: 'remove-policy', org: record.org, name: policy });
    }
  }
  engine.cancel(record.progress, outcomes, now, events);
  Object.assign(record, { state: 'cancelled', finishedAt: now });
  events.push({ kind: 'rollout', event: 'cancelled', ...(record.reason && { reason: record.reason }) });
  step.release = true;
}

/** What a step may change of a rollout, to tell whether it did. */
function snapshot(record: RolloutRecord): string {
  return JSON.stringify([record.state, record.reason, record.progress, record.finishedAt]);
}
