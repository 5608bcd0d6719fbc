/**
 * Doctor's planned-maintenance workflow (docs/domain.md, Maintenance sessions;
 * docs/architecture.md, invariant 7) as a pure step function: from the stored progress and one input (a reply, the agbot's slot, a host
 * found empty, a host action done, the clock), the next progress and the commands that carry it
 * out. Nothing here touches the database, the bus or the clock: the driver stores the progress
 * and the commands together and carries the commands out, each one idempotent, so a replica
 * that restarts after a crash gives them again and nothing is lost or done twice.
 *
 * The session tells its subscribed projects MAINTENANCE and waits for their replies until
 * `actions_at` (without one, until every reply is in or the reply timeout passed); projects whose workloads the hosts left in service cannot hold are then told
 * DOWN_SCALE and waited for. Then host after host (hosts of one HA group one at a time, up to
 * `maxParallelHosts` at once): the host's slot in its HA group is taken; the projects with
 * instances on it are told PREPARE_MAINTENANCE (PLANNED_MAINTENANCE once a host of the session
 * is maintained, so instances may move onto it) and answer with an action per instance; the
 * host is cordoned and its workloads placed elsewhere; once it is empty its projects are told
 * INSTANCE_ACTION_DONE, admin tools IN_MAINTENANCE, and the host action runs; then admin
 * MAINTENANCE_COMPLETE and the host back in service; the slot is given back once the host runs
 * its workloads again (or, noted, once the driver gave up waiting), so the next member of its
 * HA group is never taken down before this one serves. Last, the projects are
 * told MAINTENANCE_COMPLETE. A NACK or a reply that does not come in time is handled by that
 * project's policy alone: `proceed` as if acknowledged, `skip-host` leaves out the hosts it is
 * about (all of the project's hosts, for MAINTENANCE and DOWN_SCALE), `fail` fails the
 * session. A project nobody listens to is never asked: its workloads are moved by policy.
 * A paused session starts no further host (no slot is asked for); the hosts under way finish.
 * A host whose instances would take a declared instance group past its `max_impacted_members`,
 * or that holds instances of a group still in its `recovery_time` after a host of it was done,
 * waits (a host holding more of a group than it allows goes only while none of it is impacted).
 * A host's projects get at least the `lead_time` their instances there declared to answer it;
 * a host that keeps a declared instance out longer than its `max_interruption_time`, and an
 * answered action other than the instance's declared `migration_type`, are noted.
 */
import { type InstanceAction, type RepliedState, type SessionState } from '@careen/contracts';
import { isDeepStrictEqual } from 'node:util';
import { fitsInstanceGroup } from '@careen/disruption';
import {
  type Ask,
  type HostProgress,
  hostProgress,
  type PlannedInstanceGroup,
  type SessionPlan,
  type SessionProgress,
  type WorkflowCommand,
  type WorkflowInput,
  type WorkflowNote,
  type WorkflowStep,
} from './workflow.types';

type TellProject = Extract<WorkflowCommand, { kind: 'tell-project' }>;

const HOST_ACTIONS = ['MIGRATE', 'LIVE_MIGRATE'] as const;
const ACTIVE_PHASES: readonly HostProgress['phase'][] = [
  'slot',
  'preparing',
  'evacuating',
  'in-maintenance',
  'returning',
];
/** Phases of a host that was maintained: its instances may move onto it. */
const MAINTAINED_PHASES: readonly HostProgress['phase'][] = ['returning', 'done'];
const FINISHED_STATES: readonly SessionState[] = ['MAINTENANCE_DONE', 'MAINTENANCE_FAILED'];

export class MaintenanceWorkflow {
  /** Per host, how many instances of each declared group it holds; indexed once per plan. */
  private readonly groupMembers = new Map<string, Map<PlannedInstanceGroup, number>>();
  /** Per group, the hosts holding its instances. */
  private readonly groupHosts = new Map<PlannedInstanceGroup, string[]>();

  constructor(private readonly plan: SessionPlan) {
    const hostOf = new Map(plan.instances.map((instance) => [instance.id, instance.host]));
    for (const group of plan.instanceGroups ?? []) {
      const hosts: string[] = [];
      for (const instance of group.instances) {
        const host = hostOf.get(instance);
        if (host === undefined) continue;
        const counts = this.groupMembers.get(host) ?? new Map<PlannedInstanceGroup, number>();
        const held = counts.get(group) ?? 0;
        if (held === 0) hosts.push(host);
        counts.set(group, held + 1);
        this.groupMembers.set(host, counts);
      }
      this.groupHosts.set(group, hosts);
    }
  }

  /** The session as it starts: its subscribed projects told MAINTENANCE, due at `actions_at`. */
  start(now: Date): WorkflowStep {
    const progress: SessionProgress = {
      state: 'MAINTENANCE',
      hosts: Object.fromEntries(
        this.plan.hosts.map((host) => [
          host.id,
          { phase: 'waiting', haGroup: host.haGroup, since: now.toISOString() },
        ]),
      ),
      asks: [],
    };
    const commands: WorkflowCommand[] = [];
    for (const project of this.subscribedProjects(this.plan.hosts.map((host) => host.id))) {
      commands.push(this.ask(progress, project, 'MAINTENANCE', null, now, new Date(this.plan.actionsAt)));
    }
    return this.settle(progress, commands, now);
  }

  /** The next step after `input`; an input that means nothing now changes nothing. */
  advance(previous: SessionProgress, input: WorkflowInput, now: Date): WorkflowStep {
    const progress: SessionProgress = structuredClone(previous);
    if (FINISHED_STATES.includes(progress.state)) return { progress, commands: [] };
    const commands: WorkflowCommand[] = [];
    const notes: WorkflowNote[] = [];
    switch (input.kind) {
      case 'reply': {
        const ask = this.pendingAsk(progress, input.project, input.state);
        if (!ask) return { progress: previous, commands: [] };
        ask.answer = input.ack ? 'ack' : 'nack';
        ask.answeredAt = now.toISOString();
        const actions = this.actionsOf(ask, input);
        if (actions) ask.instanceActions = actions;
        notes.push(...this.unexpectedActions(ask));
        break;
      }
      case 'slot-granted':
        if (progress.hosts[input.host]?.phase === 'slot') this.prepare(progress, input.host, commands, now);
        break;
      case 'host-empty':
        if (progress.hosts[input.host]?.phase === 'evacuating') {
          notes.push(...this.overlongInterruptions(progress, input.host, now));
          this.enter(progress, input.host, commands, now);
        }
        break;
      case 'host-action-done':
        if (progress.hosts[input.host]?.phase === 'in-maintenance')
          this.leave(progress, input.host, commands, now);
        break;
      case 'host-serving':
        if (progress.hosts[input.host]?.phase === 'returning')
          this.serve(progress, input.host, commands, now);
        break;
      case 'serve-timeout':
        if (progress.hosts[input.host]?.phase === 'returning') {
          notes.push({
            project: null,
            host: input.host,
            message: `host ${input.host} did not serve again within ${input.seconds} s (${input.missing}): its HA group's slot was given back`,
            detail: { waitedSeconds: input.seconds, missing: input.missing },
          });
          this.serve(progress, input.host, commands, now);
        }
        break;
      case 'pause':
        progress.paused = true;
        break;
      case 'resume':
        progress.paused = false;
        break;
      case 'abort':
        this.fail(progress, 'aborted by an admin', commands, now);
        return { progress, commands };
      case 'tick':
        progress.tickedAt = now.toISOString();
        break;
    }
    const step = this.settle(progress, commands, now);
    return notes.length > 0 ? { ...step, notes } : step;
  }

  /** The answered actions that differ from what the instances' project declared it would answer. */
  private unexpectedActions(ask: Ask): WorkflowNote[] {
    return Object.entries(ask.instanceActions ?? {}).flatMap(([instance, action]) => {
      const declared = this.plan.instanceLimits?.[instance]?.migrationType;
      // Fenix's sample declares MIGRATE as MIGRATION.
      const expected = declared === 'MIGRATION' ? 'MIGRATE' : declared;
      if (expected === undefined || expected === action) return [];
      return [
        {
          project: ask.project,
          host: ask.host,
          message: `instance ${instance} answered ${action}; its project declared ${declared}`,
          detail: { instance, answered: action, declared },
        },
      ];
    });
  }

  /** The declared instances of `host` out of service longer than they may be, once it is empty. */
  private overlongInterruptions(progress: SessionProgress, host: string, now: Date): WorkflowNote[] {
    const outSeconds = (now.getTime() - Date.parse(hostProgress(progress, host).since)) / 1000;
    return this.plan.instances
      .filter((each) => each.host === host)
      .flatMap((instance) => {
        const limit = this.plan.instanceLimits?.[instance.id]?.maxInterruptionSeconds;
        if (limit === undefined || limit === 0 || outSeconds <= limit) return [];
        return [
          {
            project: instance.project,
            host,
            message: `instance ${instance.id} was out of service ${Math.round(outSeconds)} s, longer than its max_interruption_time of ${limit} s`,
            detail: {
              instance: instance.id,
              outSeconds: Math.round(outSeconds),
              maxInterruptionSeconds: limit,
            },
          },
        ];
      });
  }

  /** Why a reply in this state cannot be taken now, or undefined when it can. */
  refusesReply(progress: SessionProgress, project: string, state: RepliedState): string | undefined {
    if (FINISHED_STATES.includes(progress.state)) return `the session has ended (${progress.state})`;
    if (!this.plan.projects.some((each) => each.id === project))
      return `project "${project}" has no instances in this session`;
    if (this.pendingAsk(progress, project, state)) return undefined;
    const answered = [...progress.asks]
      .reverse()
      .find((ask) => ask.project === project && ask.state === state);
    return answered
      ? `project "${project}" was asked ${state} and that ask is closed (${answered.answer})`
      : `project "${project}" has not been asked ${state}`;
  }

  /**
   * Whether `reply` says again what the project's last answer to that ask said (the same answer,
   * the same action per instance): a reply given twice, as a bus message given again after a
   * crash before its acknowledgement or a PUT retried after its answer was lost, is that answer.
   */
  repeatsAnswer(progress: SessionProgress, reply: Extract<WorkflowInput, { kind: 'reply' }>): boolean {
    const ask = progress.asks.findLast(
      (each) => each.project === reply.project && each.state === reply.state,
    );
    if (!ask || ask.answer !== (reply.ack ? 'ack' : 'nack')) return false;
    return isDeepStrictEqual(ask.instanceActions ?? {}, this.actionsOf(ask, reply) ?? {});
  }

  /** The action per instance a reply gives, Fenix's one action for all spelled out per instance. */
  private actionsOf(
    ask: Ask,
    reply: Extract<WorkflowInput, { kind: 'reply' }>,
  ): Record<string, InstanceAction> | undefined {
    if (reply.instanceAction) {
      const instances = this.instancesOf(ask.project, ask.host === null ? undefined : [ask.host]);
      return Object.fromEntries(instances.map((each) => [each, reply.instanceAction!]));
    }
    return reply.instanceActions;
  }

  /**
   * When something is next due without any input (a reply's deadline, `actions_at`, an instance
   * group recovered since the last tick), if ever.
   */
  nextDeadline(progress: SessionProgress): Date | undefined {
    if (FINISHED_STATES.includes(progress.state)) return undefined;
    const times = progress.asks
      .filter((ask) => ask.answer === 'pending')
      .map((ask) => Date.parse(ask.deadline));
    if (progress.state === 'MAINTENANCE') times.push(Date.parse(this.plan.actionsAt));
    // A host waiting for an instance group to recover may start once it has: one tick after.
    const ticked = Date.parse(progress.tickedAt ?? '1970-01-01T00:00:00Z');
    for (const group of this.plan.instanceGroups ?? []) {
      const recovered = this.recoveredAt(progress, group);
      if (recovered !== undefined && recovered > ticked) times.push(recovered);
    }
    return times.length > 0 ? new Date(Math.min(...times)) : undefined;
  }

  /** Moves on as far as the progress allows, from time-outs to the end of the session. */
  private settle(progress: SessionProgress, commands: WorkflowCommand[], now: Date): WorkflowStep {
    for (const ask of progress.asks) {
      if (ask.answer === 'pending' && Date.parse(ask.deadline) <= now.getTime()) {
        ask.answer = 'timeout';
        ask.answeredAt = now.toISOString();
      }
    }
    if (progress.state === 'MAINTENANCE') {
      const due = now.getTime() >= Date.parse(this.plan.actionsAt) || this.plan.startWhenReady === true;
      if (!due || this.pending(progress, 'MAINTENANCE')) return { progress, commands };
      if (!this.closeSessionAsks(progress, 'MAINTENANCE', commands, now)) return { progress, commands };
      const shrinking = this.subscribedProjects(this.plan.hosts.map((host) => host.id)).filter((project) =>
        this.plan.downScaleProjects?.includes(project.id),
      );
      progress.state = shrinking.length > 0 ? 'DOWN_SCALE' : 'PREPARE_MAINTENANCE';
      for (const project of shrinking) {
        const deadline = new Date(now.getTime() + project.replyTimeoutSeconds * 1000);
        commands.push(this.ask(progress, project, 'DOWN_SCALE', null, now, deadline));
      }
    }
    if (progress.state === 'DOWN_SCALE') {
      if (this.pending(progress, 'DOWN_SCALE')) return { progress, commands };
      if (!this.closeSessionAsks(progress, 'DOWN_SCALE', commands, now)) return { progress, commands };
      progress.state = 'PREPARE_MAINTENANCE';
    }
    if (progress.state !== 'MAINTENANCE_COMPLETE') {
      if (!this.rollHosts(progress, commands, now)) return { progress, commands };
      this.complete(progress, commands, now);
    }
    if (progress.state === 'MAINTENANCE_COMPLETE' && !this.pending(progress, 'MAINTENANCE_COMPLETE')) {
      progress.state = 'MAINTENANCE_DONE';
      progress.paused = false;
    }
    return { progress, commands };
  }

  /**
   * Applies each project's policy to its session-wide asks of `state` that were not
   * acknowledged: `skip-host` leaves out every host with its instances, `fail` fails the
   * session (answers false).
   */
  private closeSessionAsks(
    progress: SessionProgress,
    state: RepliedState,
    commands: WorkflowCommand[],
    now: Date,
  ): boolean {
    for (const ask of this.unacknowledged(progress, state, null)) {
      const why = `project "${ask.project}" did not acknowledge ${state} (${ask.answer})`;
      const verdict = this.onNoAck(ask);
      if (verdict === 'fail') {
        this.fail(progress, why, commands, now);
        return false;
      }
      if (verdict === 'skip-host')
        for (const host of this.hostsOf(ask.project)) this.skip(progress, host, why, now);
    }
    return true;
  }

  /** Moves every host on that can move; true once every host is done or skipped. */
  private rollHosts(progress: SessionProgress, commands: WorkflowCommand[], now: Date): boolean {
    for (const [id, host] of Object.entries(progress.hosts)) {
      if (host.phase !== 'preparing' || this.pending(progress, undefined, id)) continue;
      const refusals = this.unacknowledged(progress, undefined, id);
      const failing = refusals.find((ask) => this.onNoAck(ask) === 'fail');
      if (failing) {
        this.fail(
          progress,
          `project "${failing.project}" did not acknowledge ${failing.state} for host "${id}" (${failing.answer})`,
          commands,
          now,
        );
        return false;
      }
      const skipping = refusals.find((ask) => this.onNoAck(ask) === 'skip-host');
      if (skipping) {
        this.skip(
          progress,
          id,
          `project "${skipping.project}" did not acknowledge ${skipping.state} (${skipping.answer})`,
          now,
        );
        commands.push({ kind: 'release-slot', host: id });
        continue;
      }
      this.move(host, 'evacuating', now);
      commands.push({ kind: 'cordon', host: id });
    }
    for (const id of this.startable(progress, now)) {
      const host = hostProgress(progress, id);
      this.move(host, 'slot', now);
      commands.push({ kind: 'take-slot', host: id });
    }
    const phases = Object.values(progress.hosts).map((host) => host.phase);
    const maintained = phases.some((phase) => MAINTAINED_PHASES.includes(phase));
    if (phases.every((phase) => phase === 'done' || phase === 'skipped')) return true;
    progress.state =
      phases.includes('in-maintenance') && !maintained
        ? 'START_MAINTENANCE'
        : maintained
          ? 'PLANNED_MAINTENANCE'
          : 'PREPARE_MAINTENANCE';
    return false;
  }

  /**
   * Hosts that may start now: none while paused, else within the parallel limit, none of an HA
   * group with a host under way, and none that its instance groups' budgets or recovery forbid.
   */
  private startable(progress: SessionProgress, now: Date): string[] {
    if (progress.paused) return [];
    const entries = Object.entries(progress.hosts);
    const active = entries.filter(([, host]) => ACTIVE_PHASES.includes(host.phase));
    const busyGroups = new Set(active.map(([, host]) => host.haGroup).filter((group) => group !== null));
    const impacted = this.impactedNow(progress);
    const chosen: string[] = [];
    let room = this.plan.maxParallelHosts - active.length;
    for (const [id, host] of entries) {
      if (room <= 0) break;
      if (host.phase !== 'waiting') continue;
      if (host.haGroup !== null && busyGroups.has(host.haGroup)) continue;
      if (this.constraintHolds(progress, id, impacted, now) !== undefined) continue;
      if (host.haGroup !== null) busyGroups.add(host.haGroup);
      this.addImpact(impacted, id);
      chosen.push(id);
      room -= 1;
    }
    return chosen;
  }

  /** Why their instance groups keep waiting hosts waiting at `now`, for the hosts they do. */
  waitReasons(progress: SessionProgress, now: Date): Map<string, string> {
    const reasons = new Map<string, string>();
    if (this.groupMembers.size === 0) return reasons;
    const impacted = this.impactedNow(progress);
    for (const host of this.groupMembers.keys()) {
      if (progress.hosts[host]?.phase !== 'waiting') continue;
      const why = this.constraintHolds(progress, host, impacted, now);
      if (why !== undefined) reasons.set(host, why);
    }
    return reasons;
  }

  /** How many instances of each group are on hosts under way. */
  private impactedNow(progress: SessionProgress): Map<PlannedInstanceGroup, number> {
    const impacted = new Map<PlannedInstanceGroup, number>();
    for (const [id, host] of Object.entries(progress.hosts))
      if (ACTIVE_PHASES.includes(host.phase)) this.addImpact(impacted, id);
    return impacted;
  }

  private addImpact(impacted: Map<PlannedInstanceGroup, number>, host: string): void {
    for (const [group, members] of this.groupMembers.get(host) ?? [])
      impacted.set(group, (impacted.get(group) ?? 0) + members);
  }

  /** Why an instance group keeps `host` waiting now (its budget, or its recovery), if one does. */
  private constraintHolds(
    progress: SessionProgress,
    host: string,
    impacted: ReadonlyMap<PlannedInstanceGroup, number>,
    now: Date,
  ): string | undefined {
    for (const [group, members] of this.groupMembers.get(host) ?? []) {
      const already = impacted.get(group) ?? 0;
      if (!fitsInstanceGroup(group.maxImpacted, members, already))
        return `instance group ${group.id} (project ${group.project}) has ${already} of its instances under way, ${group.maxImpacted} at most`;
      const recovered = this.recoveredAt(progress, group);
      if (recovered !== undefined && recovered > now.getTime())
        return `instance group ${group.id} (project ${group.project}) recovers until ${new Date(recovered).toISOString()}`;
    }
    return undefined;
  }

  /** When the group's last disruption in this session has been recovered from, if it had one. */
  private recoveredAt(progress: SessionProgress, group: PlannedInstanceGroup): number | undefined {
    const ends = (this.groupHosts.get(group) ?? [])
      .map((id) => hostProgress(progress, id))
      .filter((host) => host.phase === 'done')
      .map((host) => Date.parse(host.since));
    return ends.length > 0 ? Math.max(...ends) + group.recoverySeconds * 1000 : undefined;
  }

  /** The longest notice the project's instances on `host` declared they need. */
  private leadSeconds(project: string, host: string): number {
    return Math.max(
      0,
      ...this.instancesOf(project, [host]).map((id) => this.plan.instanceLimits?.[id]?.leadSeconds ?? 0),
    );
  }

  /** The host holds its group's slot: its projects are told what is coming. */
  private prepare(progress: SessionProgress, host: string, commands: WorkflowCommand[], now: Date): void {
    this.move(hostProgress(progress, host), 'preparing', now);
    const maintained = Object.values(progress.hosts).some((each) => MAINTAINED_PHASES.includes(each.phase));
    const state = maintained ? 'PLANNED_MAINTENANCE' : 'PREPARE_MAINTENANCE';
    for (const project of this.subscribedProjects([host])) {
      const seconds = Math.max(project.replyTimeoutSeconds, this.leadSeconds(project.id, host));
      const deadline = new Date(now.getTime() + seconds * 1000);
      commands.push({
        ...this.ask(progress, project, state, host, now, deadline),
        allowedActions: maintained ? [...HOST_ACTIONS, 'OWN_ACTION'] : [...HOST_ACTIONS],
      });
    }
  }

  /** The host is empty: projects and admin tools are told, and the host action starts. */
  private enter(progress: SessionProgress, host: string, commands: WorkflowCommand[], now: Date): void {
    for (const project of this.subscribedProjects([host])) {
      commands.push({
        kind: 'tell-project',
        project: project.id,
        state: 'INSTANCE_ACTION_DONE',
        instances: this.instancesOf(project.id, [host]),
        host,
      });
    }
    this.move(hostProgress(progress, host), 'in-maintenance', now);
    commands.push({ kind: 'tell-admin', host, state: 'IN_MAINTENANCE' }, { kind: 'start-host-action', host });
  }

  /** The host action is done: the host goes back in service, still holding its group's slot. */
  private leave(progress: SessionProgress, host: string, commands: WorkflowCommand[], now: Date): void {
    this.move(hostProgress(progress, host), 'returning', now);
    commands.push({ kind: 'tell-admin', host, state: 'MAINTENANCE_COMPLETE' }, { kind: 'uncordon', host });
  }

  /** The host serves again (or was waited for long enough): its group's slot is given back. */
  private serve(progress: SessionProgress, host: string, commands: WorkflowCommand[], now: Date): void {
    this.move(hostProgress(progress, host), 'done', now);
    commands.push({ kind: 'release-slot', host });
  }

  /** Every host is through: the projects are told, and asked to acknowledge. */
  private complete(progress: SessionProgress, commands: WorkflowCommand[], now: Date): void {
    progress.state = 'MAINTENANCE_COMPLETE';
    for (const project of this.subscribedProjects(this.plan.hosts.map((host) => host.id))) {
      const deadline = new Date(now.getTime() + project.replyTimeoutSeconds * 1000);
      commands.push(this.ask(progress, project, 'MAINTENANCE_COMPLETE', null, now, deadline));
    }
  }

  /** Ends the session: every host under way is put back in service and its slot given back. */
  private fail(progress: SessionProgress, why: string, commands: WorkflowCommand[], now: Date): void {
    progress.state = 'MAINTENANCE_FAILED';
    progress.failure = why;
    // An ended session is never left paused: its hosts must be given back.
    progress.paused = false;
    for (const ask of progress.asks) {
      if (ask.answer === 'pending') ask.answer = 'cancelled';
    }
    for (const [id, host] of Object.entries(progress.hosts)) {
      if (!ACTIVE_PHASES.includes(host.phase)) continue;
      if (host.phase === 'returning') {
        // Maintained and back in service already: only its slot is left to give back.
        this.serve(progress, id, commands, now);
        continue;
      }
      if (host.phase === 'in-maintenance')
        commands.push({ kind: 'tell-admin', host: id, state: 'MAINTENANCE_COMPLETE' });
      if (host.phase === 'evacuating' || host.phase === 'in-maintenance')
        commands.push({ kind: 'uncordon', host: id });
      commands.push({ kind: 'release-slot', host: id });
      if (host.phase === 'evacuating' || host.phase === 'in-maintenance') this.interrupt(host, why, now);
      else this.skip(progress, id, why, now);
    }
    for (const [id, host] of Object.entries(progress.hosts)) {
      if (host.phase === 'waiting') this.skip(progress, id, why, now);
    }
    // The projects were told maintenance was coming: they are told it is over.
    for (const project of this.subscribedProjects(this.plan.hosts.map((host) => host.id))) {
      commands.push({
        kind: 'tell-project',
        project: project.id,
        state: 'MAINTENANCE_COMPLETE',
        instances: this.instancesOf(project.id),
        host: null,
      });
    }
  }

  private ask(
    progress: SessionProgress,
    project: { id: string },
    state: RepliedState,
    host: string | null,
    now: Date,
    deadline: Date,
  ): TellProject {
    const ask: Ask = {
      project: project.id,
      state,
      host,
      askedAt: now.toISOString(),
      deadline: deadline.toISOString(),
      answer: 'pending',
    };
    progress.asks.push(ask);
    return {
      kind: 'tell-project',
      project: project.id,
      state,
      instances: this.instancesOf(project.id, host === null ? undefined : [host]),
      host,
      deadline: ask.deadline,
    };
  }

  private pendingAsk(progress: SessionProgress, project: string, state: RepliedState): Ask | undefined {
    return progress.asks.find(
      (ask) => ask.answer === 'pending' && ask.project === project && ask.state === state,
    );
  }

  private pending(progress: SessionProgress, state?: RepliedState, host?: string): boolean {
    return progress.asks.some(
      (ask) =>
        ask.answer === 'pending' &&
        (state === undefined || ask.state === state) &&
        (host === undefined || ask.host === host),
    );
  }

  /** Closed asks of this state (or any, about this host) that were not acknowledged. */
  private unacknowledged(
    progress: SessionProgress,
    state: RepliedState | undefined,
    host: string | null,
  ): Ask[] {
    return progress.asks.filter(
      (ask) =>
        ask.answer !== 'pending' &&
        ask.answer !== 'ack' &&
        (state === undefined || ask.state === state) &&
        ask.host === host,
    );
  }

  private onNoAck(ask: Ask) {
    return this.plan.projects.find((project) => project.id === ask.project)?.onNoAck ?? 'proceed';
  }

  private skip(progress: SessionProgress, host: string, reason: string, now: Date): void {
    const entry = progress.hosts[host];
    if (!entry || ['done', 'skipped', 'interrupted'].includes(entry.phase)) return;
    this.move(entry, 'skipped', now);
    entry.reason = reason;
  }

  private interrupt(host: HostProgress, reason: string, now: Date): void {
    const interruptedIn = host.phase;
    this.move(host, 'interrupted', now);
    host.reason = reason;
    host.interruptedIn = interruptedIn;
  }

  private move(host: HostProgress, phase: HostProgress['phase'], now: Date): void {
    host.phase = phase;
    host.since = now.toISOString();
  }

  /** Subscribed projects with instances on any of `hosts`, in the plan's order. */
  private subscribedProjects(hosts: readonly string[]) {
    return this.plan.projects.filter(
      (project) =>
        project.subscribed &&
        this.plan.instances.some((each) => each.project === project.id && hosts.includes(each.host)),
    );
  }

  private instancesOf(project: string, hosts?: readonly string[]): string[] {
    return this.plan.instances
      .filter((each) => each.project === project && (hosts === undefined || hosts.includes(each.host)))
      .map((each) => each.id);
  }

  private hostsOf(project: string): string[] {
    return [
      ...new Set(this.plan.instances.filter((each) => each.project === project).map((each) => each.host)),
    ];
  }
}
