/**
 * Drives every open session forward; only the elected replica runs it, so two replicas never
 * drive one session. Each pass, per session: carry out its pending commands (per host in the
 * order given; a refused slot waits and blocks only that host), then look at what the platform
 * did (a cordoned host emptied, a host action finished, a host back in service running its
 * workloads again, or waited for too long), feed it to the workflow, and wake it
 * when a reply falls due. Slots held are renewed every third of their lease. A finished session
 * whose commands are all carried out gives its hosts back. After a restart the pass starts from
 * the stored progress and pending commands: nothing acknowledged is asked again.
 */
import { dataOf } from '@careen/api-client';
import { TERMINAL_STATUSES, type ManagementStatusValue } from '@careen/contracts';
import { type ExchangeClient, WakeableLoop } from '@careen/service';
import { type FleetFacts } from '../planning/fleet-facts';
import { FINISHED_STATES, type PendingCommand, type SessionRecord } from '../sessions/session-record';
import { type SessionSteps } from '../sessions/session-steps';
import { type SessionStore } from '../sessions/session-store';
import { MaintenanceWorkflow } from '../workflow/maintenance-workflow';
import { type HostPhase, type WorkflowInput } from '../workflow/workflow.types';
import { type CommandRunner } from './command-runner';

const SLOT_HELD: readonly HostPhase[] = ['preparing', 'evacuating', 'in-maintenance', 'returning'];
/**
 * A host just back in service usually serves again within a placement round and an agent's
 * start: it is looked at again this soon, for this long, rather than at the next tick.
 */
const RETURN_RECHECK_MS = 50;
const RETURN_QUICK_MS = 3_000;

export interface DriverLogger {
  warn(fields: object, message: string): void;
}

export interface DriverOptions {
  store: SessionStore;
  steps: SessionSteps;
  runner: CommandRunner;
  facts: FleetFacts;
  exchange: ExchangeClient;
  tickMs: number;
  slotLeaseSeconds: number;
  /** How long a host back in service may take to run its workloads again before its slot is given back anyway. */
  serveAgainSeconds: number;
  logger: DriverLogger;
  clock?: () => Date;
}

export class SessionDriver {
  private readonly renewedAt = new Map<string, number>();
  private readonly loop: WakeableLoop;
  private recheck: NodeJS.Timeout | undefined;

  constructor(private readonly options: DriverOptions) {
    this.loop = new WakeableLoop(options.tickMs, (error) =>
      options.logger.warn({ err: String(error) }, 'maintenance pass failed; trying again'),
    );
  }

  /** Runs passes until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.loop.run(signal, () => this.pass());
  }

  /** Something changed (a reply, a session created): look again now rather than at the next tick. */
  wake(): void {
    this.loop.wake();
  }

  /** One look at every open session (a paused one's hosts under way finish); true when anything moved. */
  async pass(): Promise<boolean> {
    let moved = false;
    for (const record of await this.options.store.drivable()) {
      try {
        moved = (await this.drive(record)) || moved;
      } catch (error) {
        this.options.logger.warn(
          { session: record.id, err: String(error) },
          'driving a maintenance session failed',
        );
      }
    }
    return moved;
  }

  private async drive(record: SessionRecord): Promise<boolean> {
    const pending = await this.options.store.pendingCommands(record.id);
    const chains = new Map<string, PendingCommand[]>();
    for (const command of pending)
      chains.set(command.host ?? '', [...(chains.get(command.host ?? '') ?? []), command]);
    const carried = await Promise.all([...chains.values()].map((chain) => this.carryOut(record, chain)));
    const moved = carried.some(Boolean);
    if (FINISHED_STATES.includes(record.state)) {
      if ((await this.options.store.pendingCommands(record.id)).length > 0) return moved;
      await this.options.store.close(this.options.store.manager, record.id);
      for (const host of record.plan.hosts) this.renewedAt.delete(`${record.id}/${host.id}`);
      return true;
    }
    const current = moved ? await this.options.store.get(record.id) : record;
    if (!current) return moved;
    const inputs = await this.observe(current);
    for (const input of inputs) await this.options.steps.apply(current.id, input);
    await this.renewSlots(current);
    return moved || inputs.length > 0;
  }

  /** Carries out one host's commands in order, up to the first that must wait; true when any was. */
  private async carryOut(record: SessionRecord, chain: readonly PendingCommand[]): Promise<boolean> {
    let any = false;
    for (const pending of chain) {
      const outcome = await this.options.runner.run(record, pending);
      if (!outcome.done) {
        await this.options.store.commandPutOff(pending.id, outcome.why, outcome.found);
        break;
      }
      await this.options.steps.commandCarriedOut(pending.id, record.id, outcome.input, outcome.result);
      if (pending.command.kind === 'take-slot')
        this.renewedAt.set(`${record.id}/${pending.command.host}`, Date.now());
      any = true;
    }
    return any;
  }

  /** What the platform did since the last look, as workflow inputs. */
  private async observe(record: SessionRecord): Promise<WorkflowInput[]> {
    const inputs: WorkflowInput[] = [];
    const { store, facts } = this.options;
    await Promise.all(
      Object.entries(record.progress.hosts).map(async ([host, progress]) => {
        if (progress.phase === 'evacuating') {
          if (
            (await store.commandDone(record.id, host, 'cordon')) &&
            (await facts.hostEmpty(record.org, host))
          )
            inputs.push({ kind: 'host-empty', host });
        } else if (progress.phase === 'in-maintenance') {
          if (await this.hostActionDone(record, host)) inputs.push({ kind: 'host-action-done', host });
        } else if (progress.phase === 'returning') {
          const input = await this.returned(record, host, Date.parse(progress.since));
          if (input) inputs.push(input);
        }
      }),
    );
    const due = new MaintenanceWorkflow(record.plan).nextDeadline(record.progress);
    if (due && due.getTime() <= this.now().getTime()) inputs.push({ kind: 'tick' });
    return inputs;
  }

  /** Whether the uncordoned host serves again, or has been waited for long enough. */
  private async returned(
    record: SessionRecord,
    host: string,
    since: number,
  ): Promise<WorkflowInput | undefined> {
    const { store, facts, serveAgainSeconds } = this.options;
    if (!(await store.commandDone(record.id, host, 'uncordon'))) return undefined;
    // A host an operator had cordoned stays cordoned: it is not meant to serve.
    if ((await store.commandResult(record.id, host, 'cordon'))?.alreadyCordoned)
      return { kind: 'host-serving', host };
    const missing = await facts.hostServingLacks(record.org, host);
    if (missing === undefined) return { kind: 'host-serving', host };
    const waited = this.now().getTime() - since;
    if (waited < RETURN_QUICK_MS) this.recheckSoon();
    if (waited < serveAgainSeconds * 1000) return undefined;
    return { kind: 'serve-timeout', host, seconds: serveAgainSeconds, missing };
  }

  private recheckSoon(): void {
    this.recheck ??= setTimeout(() => {
      this.recheck = undefined;
      this.loop.wake();
    }, RETURN_RECHECK_MS).unref();
  }

  private async hostActionDone(record: SessionRecord, host: string): Promise<boolean> {
    if (!(await this.options.store.commandDone(record.id, host, 'start-host-action'))) return false;
    const action = await this.options.store.hostAction(record.id, host);
    if (!action) return false;
    if (record.hostAction.kind === 'simulated') return action.dueAt !== null && action.dueAt <= this.now();
    if (record.hostAction.kind !== 'agent-upgrade') return false;
    const policy = String(action.detail.managementPolicy);
    const status = await dataOf(
      this.options.exchange.api.GET('/v1/orgs/{org}/nodes/{node}/managementStatus/{nmp}', {
        params: { path: { org: record.org, node: host, nmp: policy } },
      }),
    ).catch(() => undefined);
    if (!status || !TERMINAL_STATUSES.includes(status.status as ManagementStatusValue)) return false;
    await this.options.steps.note(record.id, {
      kind: 'note',
      project: null,
      host,
      state: null,
      detail: { managementPolicy: policy, status: status.status },
    });
    return true;
  }

  /** Keeps the slots of hosts under way from running out. */
  private async renewSlots(record: SessionRecord): Promise<void> {
    const every = (this.options.slotLeaseSeconds * 1000) / 3;
    const now = Date.now();
    await Promise.all(
      Object.entries(record.progress.hosts)
        .filter(([, progress]) => SLOT_HELD.includes(progress.phase))
        .map(async ([host]) => {
          const key = `${record.id}/${host}`;
          if (now - (this.renewedAt.get(key) ?? 0) < every) return;
          await this.options.runner.takeSlot(record.org, host);
          this.renewedAt.set(key, now);
        }),
    );
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }
}
