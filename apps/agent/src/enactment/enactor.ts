/**
 * Enacts the management policies that apply to the node, one at a time: writes what the plan
 * says, starts the next upgrade when its moment has come, and carries an upgrade on across a
 * restart in place (a simulated agent) or a restart of the process (resumed from memory).
 */
import { type JsonLogger } from '@careen/telemetry';
import { type Clock } from '../core/clock';
import { type NodeView } from '../exchange/exchange.types';
import { type AgentMemory } from '../state/agent-memory';
import { type InstallStrategy } from '../upgrade/install-strategy';
import { type UpgradeReporter, type UpgradeRunner } from '../upgrade/upgrade-runner';
import { type NmpPlanner } from './nmp-planner';

export interface EnactorOptions {
  planner: NmpPlanner;
  runner: UpgradeRunner;
  reporter: UpgradeReporter;
  strategy: InstallStrategy;
  memory: AgentMemory;
  clock: Clock;
  logger: JsonLogger;
  /** The version this agent runs when no package has been installed yet. */
  builtinVersion: string;
  /** The node's HA group as last read. */
  haGroup: () => string | null;
  /** Called when an upgrade ends, however it ends. */
  onUpgradeEnd: () => void;
  signal: AbortSignal;
}

export class Enactor {
  private running: string;
  private upgrading: Promise<void> | undefined;
  private restartPending = false;
  /** When the next upgrade of the last plan is due. */
  private nextDue: Date | undefined;

  constructor(private readonly options: EnactorOptions) {
    this.running = options.builtinVersion;
  }

  /** The version the agent runs. */
  get version(): string {
    return this.running;
  }

  /** Learns which version runs: the installed package's, else the built-in one. */
  async learnVersion(): Promise<void> {
    this.running = (await this.options.strategy.activeVersion()) ?? this.options.builtinVersion;
  }

  /** Resumes an upgrade a restart interrupted, if there is one. */
  resume(): void {
    const { memory, logger, runner, signal } = this.options;
    if (!memory.upgrade) return;
    logger.info({ upgrade: memory.upgrade.version, phase: memory.upgrade.phase }, 'resuming an upgrade');
    this.startUpgradeLane(() => runner.proceed(this.options.haGroup(), signal));
  }

  /** Writes what the plan says and starts the next upgrade when its moment has come. */
  async enact(node: NodeView, packages: readonly string[]): Promise<void> {
    const { memory, clock, planner, reporter } = this.options;
    const plan = planner.plan({
      node,
      policies: Object.values(memory.state.policies ?? {}),
      packages,
      running: this.running,
      failed: memory.failedVersions,
      records: memory.records,
      inProgress: memory.upgrade?.nmp,
      now: clock.now(),
    });
    memory.state.enactments = plan.records;
    await memory.persist();
    for (const report of plan.reports) {
      await reporter.management(report.nmp, {
        status: report.status,
        ...(report.version ? { version: report.version } : {}),
        ...(report.error ? { error: report.error } : {}),
        // A pause is no end: the enactment goes on once resumed.
        ...(report.status === 'paused' ? {} : { endTime: clock.now().toISOString() }),
      });
    }
    if (this.upgrading || memory.upgrade) return;
    for (const waiting of plan.waiting) {
      if (memory.records[waiting.nmp]?.status === 'waiting') continue;
      memory.recordStatus(waiting.nmp, 'waiting');
      await memory.persist();
      await reporter.management(waiting.nmp, {
        status: 'waiting',
        version: waiting.target,
        fromVersion: this.running,
        startTime: waiting.moment.toISOString(),
      });
    }
    const next = plan.next;
    this.nextDue = next?.moment;
    if (!next || next.moment.getTime() > clock.now().getTime()) return;
    this.nextDue = undefined;
    this.startUpgradeLane(async () =>
      this.options.runner.begin(
        {
          nmp: next.nmp,
          // The plan has just recorded this as the policy's lastUpdated.
          lastUpdated: next.policy.lastUpdated,
          version: next.target,
          action: next.action,
          ...(next.location && { location: next.location }),
        },
        await this.options.strategy.activeVersion(),
        this.options.haGroup(),
        this.options.signal,
      ),
    );
  }

  /** An admin asked for a retry: the policy is enacted again, even at a version that failed. */
  reset(nmp: string): void {
    const { memory, logger } = this.options;
    const record = memory.records[nmp];
    if (!record) return;
    if (record.target) memory.forgetFailure(record.target);
    record.status = 'reset';
    logger.info({ nmp }, 'reset by an admin; the policy will be enacted again');
  }

  /** A simulated agent's restart: the new version runs, and the upgrade goes on with it. */
  async restartInPlace(): Promise<void> {
    await this.learnVersion();
    this.restartPending = true;
  }

  /** How long a poll may wait: no longer than until the next upgrade is due. */
  waitSeconds(pollSeconds: number): number {
    const due = this.nextDue;
    if (!due || this.upgrading || this.options.memory.upgrade) return pollSeconds;
    const seconds = Math.ceil((due.getTime() - this.options.clock.now().getTime()) / 1000);
    return Math.min(pollSeconds, Math.max(0, seconds));
  }

  /** Resolves once no upgrade is under way. */
  async settled(): Promise<void> {
    await this.upgrading?.catch(() => undefined);
  }

  private startUpgradeLane(work: () => Promise<void>): void {
    const { runner, signal, logger } = this.options;
    this.upgrading = (async () => {
      await work();
      // A simulated agent restarts in place: carry on with the saved phase on the new version.
      while (this.restartPending && !signal.aborted) {
        this.restartPending = false;
        await runner.proceed(this.options.haGroup(), signal);
      }
    })()
      .catch((error: unknown) => logger.error({ error: (error as Error).message }, 'upgrade stopped'))
      .finally(() => {
        this.upgrading = undefined;
        this.options.onUpgradeEnd();
      });
  }
}
