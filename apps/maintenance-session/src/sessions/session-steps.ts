/**
 * Carries a workflow step into the database, in one transaction with the session's row locked:
 * the new progress, the project and admin events (through the outbox, so an event is published
 * exactly when its step commits), the commands for the driver, and the timeline. A replica
 * killed at any point leaves either the step whole or nothing of it.
 */
import {
  MaintenanceAdminEvent,
  MaintenanceProjectEvent,
  type MaintenanceProjectEventPayload,
} from '@careen/contracts';
import { type OutboxMessage, type OutboxWriter } from '@careen/persistence';
import { type AuditTrail, type NamedActor } from '@careen/service';
import { AsyncLocalStorage } from 'node:async_hooks';
import { type DataSource, type EntityManager } from 'typeorm';
import { MaintenanceWorkflow } from '../workflow/maintenance-workflow';
import { type WorkflowCommand, type WorkflowInput, type WorkflowStep } from '../workflow/workflow.types';
import { capabilityFor } from './capability';
import { sessionNotFound } from './maintenance.errors';
import {
  type DriverCommand,
  FINISHED_STATES,
  type SessionRecord,
  type TimelineEntry,
} from './session-record';
import { type SessionStore } from './session-store';

export type StepEntry = Omit<TimelineEntry, 'at'>;

/** Decides, with the session locked, whether an input may be taken and what to note of it. */
/** A gate's verdict: refused, or let through with notes, or `unchanged` (asked for what already is). */
export type StepGate = (record: SessionRecord) => { refuse?: Error; notes?: StepEntry[]; unchanged?: true };

/** Most inputs of one session taken in one transaction. */
const MAX_GROUP = 256;

interface QueuedInput {
  input: WorkflowInput;
  gate: StepGate | undefined;
  by: ((record: SessionRecord) => NamedActor) | undefined;
  resolve: (record: SessionRecord) => void;
  reject: (error: unknown) => void;
  /** Runs a function in the context `apply` was called in. */
  inCallerContext: <R>(fn: () => R) => R;
}

/** An input of a group: refused, or taken (or left as it was), with the session after it. */
type TakenInput = { record: SessionRecord } | { refused: Error };

/** What the steps of one transaction have gathered to store at its end. */
class StepWriting {
  /** Events and audit records, in the order they were given. */
  readonly messages: OutboxMessage[] = [];
  readonly entries: StepEntry[] = [];
  readonly driverCommands: DriverCommand[] = [];
  constructor(readonly from: Pick<SessionRecord, 'progress'>) {}
}

export class SessionSteps {
  /** Called after each step commits: the driver looks again at once. */
  onStep: (() => void) | undefined;
  /** Inputs waiting for the transaction of their session's next group, by session. */
  private readonly queues = new Map<string, QueuedInput[]>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: SessionStore,
    private readonly outbox: OutboxWriter,
    private readonly audit: Pick<AuditTrail, 'message'>,
    /** The base of the URLs VNF managers are given. */
    private readonly publicUrl: () => string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Stores a new session and its first step (MAINTENANCE told to its subscribed projects). */
  async create(record: Omit<SessionRecord, 'progress' | 'state'>): Promise<SessionRecord> {
    const step = new MaintenanceWorkflow(record.plan).start(this.clock());
    const created: SessionRecord = { ...record, progress: step.progress, state: step.progress.state };
    await this.dataSource.transaction(async (manager) => {
      await this.store.insert(manager, created);
      const written = new StepWriting(created);
      written.entries.push({
        kind: 'note',
        project: null,
        host: null,
        state: created.state,
        detail: { message: `session created by ${created.createdBy}`, hosts: record.plan.hosts.length },
      });
      written.messages.push(
        this.audit.message({ org: record.org, action: 'session.created', target: `session/${record.id}` }),
      );
      this.writeStep(written, created, step);
      await this.finishSteps(manager, written, created);
    });
    this.onStep?.();
    return created;
  }

  /**
   * Advances the session by `input`; `gate` may refuse it (its error is thrown and nothing
   * changes) or add notes to the timeline. Answers the session as it is after the step. The
   * audit trail records the input, as the request's actor's or as `by`'s.
   *
   * Inputs for one session that arrive while a step of it is being stored wait and are then
   * taken together, in the order they came, in one transaction (twenty projects answering
   * the same ask cost one lock of the session's row, not twenty in a row). Each is decided as
   * if alone, on the session as the inputs before it left it: one refused leaves the others.
   */
  apply(
    id: string,
    input: WorkflowInput,
    gate?: StepGate,
    by?: (record: SessionRecord) => NamedActor,
  ): Promise<SessionRecord> {
    return new Promise((resolve, reject) => {
      const queued: QueuedInput = {
        input,
        gate,
        by,
        resolve,
        reject,
        inCallerContext: AsyncLocalStorage.snapshot(),
      };
      const queue = this.queues.get(id);
      if (queue) {
        queue.push(queued);
        return;
      }
      this.queues.set(id, [queued]);
      void this.applyQueued(id);
    });
  }

  /** Takes the session's queued inputs, group after group, until none is left. */
  private async applyQueued(id: string): Promise<void> {
    // Inputs given in the same turn of the event loop (a batch of bus replies) make one group.
    await Promise.resolve();
    const queue = this.queues.get(id)!;
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP);
      // Whatever else throws (waking the driver) answers the group's callers not answered yet,
      // and the inputs queued meanwhile are still taken.
      await this.applyGroup(id, group).catch((error: unknown) => {
        for (const queued of group) queued.reject(error);
      });
    }
    this.queues.delete(id);
  }

  private async applyGroup(id: string, group: readonly QueuedInput[]): Promise<void> {
    let outcomes: TakenInput[];
    try {
      outcomes = await this.dataSource.transaction(async (manager) => {
        const locked = await this.store.lock(manager, id);
        if (!locked) throw sessionNotFound(id);
        const written = new StepWriting(locked);
        const workflow = new MaintenanceWorkflow(locked.plan);
        let record = locked;
        const taken = group.map((queued) => {
          // Its messages carry its own caller's context (who acts, the trace), not the group's.
          const outcome = queued.inCallerContext(() => this.take(workflow, written, record, queued));
          if ('record' in outcome) record = outcome.record;
          return outcome;
        });
        await this.finishSteps(manager, written, record);
        return taken;
      });
    } catch (error) {
      for (const queued of group) queued.reject(error);
      return;
    }
    group.forEach((queued, index) => {
      const outcome = outcomes[index]!;
      if ('refused' in outcome) queued.reject(outcome.refused);
      else queued.resolve(outcome.record);
    });
    this.onStep?.();
  }

  /** Pauses or resumes the session; `refuse` decides, with the session locked, whether it may. */
  async pause(
    id: string,
    paused: boolean,
    refuse: (record: SessionRecord) => Error | undefined,
  ): Promise<SessionRecord> {
    return this.apply(id, { kind: paused ? 'pause' : 'resume' }, (record) => {
      const refusal = refuse(record);
      if (refusal) return { refuse: refusal };
      // Pausing a paused session (or resuming a running one) is no step and no news.
      if (record.paused === paused) return { unchanged: true };
      return {
        notes: [
          {
            kind: 'note',
            project: null,
            host: null,
            state: null,
            detail: { message: paused ? 'session paused' : 'session resumed' },
          },
        ],
      };
    });
  }

  /** Adds to the timeline outside any step (a refused reply, say). */
  async note(id: string, entry: StepEntry): Promise<void> {
    await this.store.timeline(this.dataSource.manager, id, [entry]);
  }

  /** Marks a driver command carried out and feeds what it brought about, in one transaction. */
  async commandCarriedOut(
    commandId: string,
    sessionId: string,
    input?: WorkflowInput,
    result?: Record<string, unknown>,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const record = await this.store.lock(manager, sessionId);
      if (!record) throw sessionNotFound(sessionId);
      await this.store.commandCarriedOut(manager, commandId, result);
      if (!input || FINISHED_STATES.includes(record.state)) return;
      const step = new MaintenanceWorkflow(record.plan).advance(record.progress, input, this.clock());
      if (step.progress !== record.progress) await this.record(manager, record, step);
    });
  }

  /** The reply URL of a project (also where it reads its instances), with its capability. */
  projectUrl(record: Pick<SessionRecord, 'id' | 'capabilityKey'>, project: string): string {
    const url = new URL(
      `/v1/maintenance/${encodeURIComponent(record.id)}/${encodeURIComponent(project)}`,
      this.publicUrl(),
    );
    url.searchParams.set('capability', capabilityFor(record.capabilityKey, project));
    return url.toString();
  }

  /** Decides one input of a group on the session as the inputs before it left it. */
  private take(
    workflow: MaintenanceWorkflow,
    written: StepWriting,
    record: SessionRecord,
    { input, gate, by }: QueuedInput,
  ): TakenInput {
    const verdict = gate?.(record) ?? {};
    if (verdict.refuse) return { refused: verdict.refuse };
    if (verdict.unchanged) return { record };
    const audited = auditedInput(record, input);
    if (audited) written.messages.push(this.audit.message(audited, by?.(record)));
    written.entries.push(...(verdict.notes ?? []));
    if (FINISHED_STATES.includes(record.state)) return { record };
    const step = workflow.advance(record.progress, input, this.clock());
    if (step.progress === record.progress) return { record };
    this.writeStep(written, record, step);
    return {
      record: {
        ...record,
        progress: step.progress,
        state: step.progress.state,
        paused: step.progress.paused === true,
      },
    };
  }

  /** Stores one step taken from `record`, alone in its transaction. */
  private async record(manager: EntityManager, record: SessionRecord, step: WorkflowStep): Promise<void> {
    const written = new StepWriting(record);
    this.writeStep(written, record, step);
    await this.finishSteps(manager, written, { ...record, progress: step.progress });
  }

  /** Gathers a step's events, audit records, driver commands and timeline. */
  private writeStep(written: StepWriting, record: SessionRecord, step: WorkflowStep): void {
    const entries = written.entries;
    for (const command of step.commands) {
      if (command.kind === 'tell-project') {
        written.messages.push(
          this.outbox.message(MaintenanceProjectEvent, [command.project], this.projectEvent(record, command)),
        );
        entries.push({
          kind: 'sent',
          project: command.project,
          host: command.host,
          state: command.state,
          detail: {
            instances: command.instances,
            ...(command.deadline ? { deadline: command.deadline } : {}),
          },
        });
      } else if (command.kind === 'tell-admin') {
        written.messages.push(
          this.outbox.message(MaintenanceAdminEvent, [command.host], {
            session_id: record.id,
            state: command.state,
            project_id: record.org,
            host: command.host,
          }),
        );
        entries.push({
          kind: 'sent',
          project: null,
          host: command.host,
          state: command.state,
          detail: { admin: true },
        });
      } else {
        written.driverCommands.push(command);
      }
    }
    if (step.progress.state !== record.progress.state) {
      written.messages.push(
        this.audit.message({
          org: record.org,
          action: `session.state.${step.progress.state}`,
          target: `session/${record.id}`,
        }),
      );
      entries.push({
        kind: 'note',
        project: null,
        host: null,
        state: step.progress.state,
        detail: step.progress.failure ? { failure: step.progress.failure } : {},
      });
    }
    for (const note of step.notes ?? []) {
      entries.push({
        kind: 'note',
        project: note.project,
        host: note.host,
        state: null,
        detail: { message: note.message, ...note.detail },
      });
    }
  }

  /** Stores what the steps gathered: the session's progress once, its messages, commands and timeline. */
  private async finishSteps(
    manager: EntityManager,
    written: StepWriting,
    after: Pick<SessionRecord, 'id' | 'progress'>,
  ): Promise<void> {
    await this.outbox.appendAll(manager, written.messages);
    if (after.progress !== written.from.progress)
      await this.store.saveProgress(manager, after.id, after.progress);
    await this.store.addCommands(manager, after.id, written.driverCommands);
    await this.store.timeline(manager, after.id, written.entries);
  }

  private projectEvent(
    record: SessionRecord,
    command: Extract<WorkflowCommand, { kind: 'tell-project' }>,
  ): MaintenanceProjectEventPayload {
    const url = this.projectUrl(record, command.project);
    return {
      session_id: record.id,
      state: command.state,
      project_id: command.project,
      org: record.org,
      instance_ids: url,
      instances: command.instances,
      ...(command.deadline ? { reply_url: url, actions_at: command.deadline } : {}),
      ...(command.allowedActions ? { allowed_actions: command.allowedActions } : {}),
      metadata: record.metadata,
      ...(command.host ? { host: command.host } : {}),
    };
  }
}

/**
 * What the audit trail says of an input from outside (`session.abort`,
 * `session.reply.ACK_MAINTENANCE`, …); the driver's own (ticks, slots, hosts emptied or serving) show only
 * as the state changes they bring.
 */
function auditedInput(record: SessionRecord, input: WorkflowInput) {
  const target = `session/${record.id}`;
  switch (input.kind) {
    case 'tick':
    case 'slot-granted':
    case 'host-empty':
    case 'host-serving':
    case 'serve-timeout':
      return undefined;
    case 'reply':
      return {
        org: record.org,
        action: `session.reply.${input.ack ? 'ACK' : 'NACK'}_${input.state}`,
        target: `${target}/project/${input.project}`,
      };
    case 'host-action-done':
      return { org: record.org, action: 'session.host-done', target: `${target}/host/${input.host}` };
    case 'pause':
    case 'resume':
    case 'abort':
      return { org: record.org, action: `session.${input.kind}`, target };
  }
}
