/**
 * What the maintenance routes and the bus ask of sessions, free of Nest: plan and start a
 * session, show it, pause, resume or abort it, take a project's reply or a host's completion.
 * Each change goes through SessionSteps, with the session's row locked.
 */
import {
  describeValidationErrors,
  DomainError,
  type MaintenanceReplyPayload,
  parseReplyState,
} from '@careen/contracts';
import { ApiError } from '@careen/api-client';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { type ReplyObserver } from '../maintenance-metrics';
import { type ConstraintsStore } from '../constraints/constraints.store';
import { type FleetFacts } from '../planning/fleet-facts';
import { type SubscriberCheck } from '../planning/subscriber-check';
import { planSession, type PlanProblem, type PlanRequest } from '../workflow/session-planner';
import { capabilityOpens, newCapabilityKey } from './capability';
import { type CreateSessionDto, ProjectSettingsDto } from './dto/create-session.dto';
import {
  capabilityRefused,
  exchangeUnavailable,
  hostNotAwaited,
  invalidSession,
  sessionFinished,
  sessionNotFound,
} from './maintenance.errors';
import { readReply } from './reply-gate';
import {
  FINISHED_STATES,
  type HostActionSpec,
  type SessionRecord,
  type TimelineEntry,
} from './session-record';
import { type SessionSteps, type StepGate } from './session-steps';
import { type SessionStore } from './session-store';
import { type SessionView, viewOf } from './session-view';

export const DEFAULT_REPLY_TIMEOUT_SECONDS = 60;

/** Where a reply came from: a reply_url with the capability it names, or the bus. */
export type ReplyOrigin = { via: 'http'; capability: string | undefined } | { via: 'bus' };

export interface SessionsDependencies {
  store: SessionStore;
  steps: SessionSteps;
  /** Absent without exchange credentials: no session can be planned. */
  facts: FleetFacts | undefined;
  subscribers: SubscriberCheck;
  /** The projects' declared instance groups, which the session's host order respects. */
  constraints?: Pick<ConstraintsStore, 'declared'>;
  replies?: ReplyObserver;
  clock?: () => Date;
}

export class MaintenanceSessions {
  private readonly clock: () => Date;

  constructor(private readonly deps: SessionsDependencies) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async create(org: string, createdBy: string, request: CreateSessionDto): Promise<SessionView> {
    const facts = this.deps.facts;
    if (!facts)
      throw exchangeUnavailable(
        'the maintenance service has no exchange credentials (CAREEN_MAINTENANCE_EXCHANGE_PASSWORD): it cannot read the hosts',
      );
    const { plan: planRequest, hostAction, problems } = this.readRequest(request);
    const version = hostAction.kind === 'agent-upgrade' ? hostAction.version : undefined;
    if (version && !(await readFleet(org, () => facts.agentPackagePublished(version))))
      problems.push({
        path: 'host_action.version',
        problem: `no agent package of version "${version}" is published: publish it first (careen agentpackage publish)`,
      });
    const nodes = await readFleet(org, () => facts.nodes(org));
    // The hosts first (their problems need no workloads), then what runs on them.
    const chosen = planSession(
      { ...planRequest, projects: undefined },
      { nodes, workloads: [], subscribed: () => true },
    );
    if ('problems' in chosen || problems.length > 0)
      throw invalidSession([...problems, ...('problems' in chosen ? chosen.problems : [])]);
    const hosts = chosen.plan.hosts.map((host) => host.id);
    const { workloads, replicated } = await readFleet(org, () => facts.workloads(org, hosts));
    const subscribed = await this.deps.subscribers.subscribed(org, [
      ...new Set(workloads.map((each) => each.project)),
    ]);
    const planned = planSession(planRequest, {
      nodes,
      workloads,
      replicated,
      subscribed: (project) => subscribed.get(project) ?? true,
      constraints: await this.deps.constraints?.declared(org),
    });
    if ('problems' in planned) throw invalidSession(planned.problems);
    const created = await this.deps.steps.create({
      id: randomUUID(),
      org,
      createdBy,
      createdAt: this.clock(),
      updatedAt: this.clock(),
      paused: false,
      hostAction,
      metadata: { ...(request.metadata ?? {}), ...(request.workflow ? { workflow: request.workflow } : {}) },
      plan: planned.plan,
      capabilityKey: newCapabilityKey(),
      closedAt: null,
    });
    return viewOf(created);
  }

  async get(id: string, withTimeline = true): Promise<SessionView> {
    const record = await this.find(id);
    return this.viewWithWaits(record, withTimeline ? await this.deps.store.readTimeline(id) : undefined);
  }

  /** The session as its routes show it, with the slot holders its waiting hosts were refused by. */
  private async viewWithWaits(
    record: SessionRecord,
    timeline?: readonly TimelineEntry[],
  ): Promise<SessionView> {
    const waits = await this.deps.store.slotWaits([record.id]);
    return viewOf(record, timeline, waits.get(record.id));
  }

  /** The session's org, for the caller's access check. */
  async orgOf(id: string): Promise<string> {
    return (await this.find(id)).org;
  }

  async list(org: string): Promise<SessionView[]> {
    const records = await this.deps.store.list(org, 500);
    const waits = await this.deps.store.slotWaits(records.map((record) => record.id));
    return records.map((record) => viewOf(record, undefined, waits.get(record.id)));
  }

  /** Ends the session: hosts under way back in service, slots given back, projects told. */
  async abort(id: string): Promise<SessionView> {
    return this.viewWithWaits(
      await this.deps.steps.apply(id, { kind: 'abort' }, (record) =>
        FINISHED_STATES.includes(record.state) ? { refuse: sessionFinished(id, record.state) } : {},
      ),
    );
  }

  /** Paused, no further host is started; the hosts under way finish. */
  async setPaused(id: string, paused: boolean): Promise<SessionView> {
    return this.viewWithWaits(
      await this.deps.steps.pause(id, paused, (record) =>
        FINISHED_STATES.includes(record.state) ? sessionFinished(id, record.state) : undefined,
      ),
    );
  }

  /** A `manual` or `external` host action reported done. */
  async completeHost(id: string, host: string, by: string): Promise<SessionView> {
    return this.viewWithWaits(
      await this.deps.steps.apply(id, { kind: 'host-action-done', host }, (record) => {
        if (FINISHED_STATES.includes(record.state)) return { refuse: sessionFinished(id, record.state) };
        const progress = record.progress.hosts[host];
        if (!progress) return { refuse: hostNotAwaited(host, 'is not a host of this session') };
        if (record.hostAction.kind !== 'manual' && record.hostAction.kind !== 'external')
          return {
            refuse: hostNotAwaited(
              host,
              `is maintained by the ${record.hostAction.kind} host action, not reported done`,
            ),
          };
        if (progress.phase !== 'in-maintenance')
          return { refuse: hostNotAwaited(host, `is not in maintenance (it is ${progress.phase})`) };
        return {
          notes: [{ kind: 'received', project: null, host, state: 'MAINTENANCE_COMPLETE', detail: { by } }],
        };
      }),
    );
  }

  /** The project's instances in the session; the capability of its URL opens it. */
  async projectInstances(id: string, project: string, capability: string | undefined) {
    const record = await this.find(id);
    this.checkCapability(record, project, capability);
    const instances = record.plan.instances.filter((instance) => instance.project === project);
    return {
      session_id: id,
      project_id: project,
      state: record.state,
      instance_ids: instances.map((instance) => instance.id),
      instances: instances.map((instance) => ({
        instance_id: instance.id,
        host: instance.host,
        host_phase: record.progress.hosts[instance.host]?.phase ?? null,
      })),
    };
  }

  /**
   * A project's reply: from its reply_url with the `capability` it names, or off the bus (whose
   * subject the server's permissions guard). A refused reply is noted in the timeline and its
   * error thrown; a reply that says again what the project answered (a bus message given again
   * after a crash, a PUT retried) changes nothing and is not refused.
   */
  async reply(id: string, project: string, body: MaintenanceReplyPayload, from: ReplyOrigin): Promise<void> {
    const { via } = from;
    if (from.via === 'http') this.checkCapability(await this.find(id), project, from.capability);
    const answer = parseReplyState(body.state)?.ack === false ? 'nack' : 'ack';
    try {
      const read = readReply(id, project, body, via);
      let again = false;
      const gate: StepGate = (record) => {
        const verdict = read.gate(record);
        again = verdict.unchanged === true;
        return verdict;
      };
      // A VNF manager is no principal: the trail names it by its project and how it replied.
      const after = await this.deps.steps.apply(id, read.input, gate, (record) => ({
        actor: `${record.org}/project:${project}`,
        kind: 'project',
        via: via === 'http' ? 'capability' : 'bus',
      }));
      if (again) return;
      const ask = after.progress.asks.findLast(
        (each) => each.project === project && each.state === read.input.state,
      );
      const latency = ask?.answeredAt
        ? (Date.parse(ask.answeredAt) - Date.parse(ask.askedAt)) / 1000
        : undefined;
      this.deps.replies?.reply(via, answer, 'taken', latency);
    } catch (error) {
      this.deps.replies?.reply(
        via,
        error instanceof DomainError && error.kind === 'invalid' ? 'invalid' : answer,
        'refused',
      );
      if (error instanceof DomainError && error.code !== 'maintenance.session-not-found')
        await this.deps.steps.note(id, {
          kind: 'refused',
          project,
          host: null,
          state: typeof body.state === 'string' ? body.state : null,
          detail: { via, reason: error.message },
        });
      throw error;
    }
  }

  private checkCapability(record: SessionRecord, project: string, capability: string | undefined): void {
    if (!record.plan.projects.some((each) => each.id === project))
      throw new DomainError(
        'not-found',
        'maintenance.project-not-found',
        `project "${project}" has no instances in session ${record.id}`,
      );
    if (!capabilityOpens(record.capabilityKey, project, capability)) throw capabilityRefused();
  }

  private async find(id: string): Promise<SessionRecord> {
    const record = await this.deps.store.get(id);
    if (!record) throw sessionNotFound(id);
    return record;
  }

  private readRequest(request: CreateSessionDto): {
    plan: PlanRequest;
    hostAction: HostActionSpec;
    problems: PlanProblem[];
  } {
    const problems: PlanProblem[] = [];
    if (request.actions_at && request.maintenance_at)
      problems.push({
        path: 'maintenance_at',
        problem: "give actions_at or Fenix's maintenance_at, not both",
      });
    const projects: PlanRequest['projects'] = {};
    for (const [name, settings] of Object.entries(request.projects ?? {})) {
      const read = plainToInstance(ProjectSettingsDto, settings);
      const errors =
        typeof settings === 'object' && settings !== null && !Array.isArray(settings)
          ? validateSync(read, { whitelist: true, forbidNonWhitelisted: true })
          : [];
      if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
        problems.push({ path: `projects.${name}`, problem: 'must be an object' });
      else if (errors.length > 0)
        problems.push({ path: `projects.${name}`, problem: describeValidationErrors(errors) });
      else
        projects[name] = {
          replyTimeoutSeconds: read.reply_timeout_seconds,
          replyTimeoutPolicy: read.reply_timeout_policy,
        };
    }
    const hostAction: HostActionSpec = { kind: request.host_action?.kind ?? 'manual' };
    problems.push(...optionsNotTaken(request.host_action));
    if (request.host_action?.kind === 'simulated') hostAction.seconds = request.host_action.seconds ?? 0;
    if (request.host_action?.kind === 'agent-upgrade') {
      if (!request.host_action.version)
        problems.push({
          path: 'host_action.version',
          problem: 'agent-upgrade needs the version to roll the hosts to',
        });
      hostAction.version = request.host_action.version;
    }
    const given = request.actions_at ?? request.maintenance_at;
    const replyTimeoutSeconds = request.reply_timeout_seconds ?? DEFAULT_REPLY_TIMEOUT_SECONDS;
    const selector = request.selector && {
      labels: request.selector.labels,
      racks: request.selector.racks,
      haGroups: request.selector.ha_groups,
    };
    return {
      plan: {
        hosts: request.hosts,
        selector,
        actionsAt: given ?? new Date(this.clock().getTime() + replyTimeoutSeconds * 1000).toISOString(),
        startWhenReady: given === undefined,
        maxParallelHosts: request.max_parallel_hosts ?? 1,
        replyTimeoutSeconds,
        replyTimeoutPolicy: request.reply_timeout_policy ?? 'proceed',
        projects,
      },
      hostAction,
      problems,
    };
  }
}

/** The host action's settings that its kind does not take: refused, rather than left unused. */
function optionsNotTaken(action: CreateSessionDto['host_action']): PlanProblem[] {
  if (!action) return [];
  const takenBy = { seconds: 'simulated', version: 'agent-upgrade' } as const;
  return (Object.keys(takenBy) as (keyof typeof takenBy)[])
    .filter((option) => action[option] !== undefined && action.kind !== takenBy[option])
    .map((option) => ({
      path: `host_action.${option}`,
      problem: `the ${action.kind} host action takes no ${option} (only ${takenBy[option]} does)`,
    }));
}

/** What the exchange or the agbot answered, as the caller's error: an unknown org, or a 503. */
async function readFleet<T>(org: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      throw new DomainError('not-found', 'maintenance.org-not-found', `no org "${org}" at the exchange`);
    throw exchangeUnavailable(
      `the hosts could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
