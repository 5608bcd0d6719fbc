/**
 * Writes what the agent has to tell the exchange, and keeps trying when it cannot: a status
 * left unwritten would leave the policy's progress hanging. Node status writes are coalesced:
 * while one is in flight, further requests make one more write with the latest values. An
 * unchanged node status is not written again: the agent's change-feed polls are its heartbeat.
 */
import { type JsonLogger } from '@careen/telemetry';
import { Backoff } from './backoff';
import { type Clock, type RandomSource } from './clock';
import { type ExchangeClient } from '../exchange/exchange-client';
import {
  type ActualWorkload,
  type AgentVersionReport,
  type ManagementStatusReport,
} from '../exchange/exchange.types';
import { ApiError } from '@careen/api-client';
import { PolicyStopped } from '../enactment/policy-stopped';
import { type AgentMemory } from '../state/agent-memory';
import { type UpgradeReporter } from '../upgrade/upgrade-runner';

export interface StatusObserver {
  (event: { nmp: string; status: ManagementStatusReport['status']; version?: string; at: Date }): void;
}

export class StatusReporter implements UpgradeReporter {
  private nodeWrite: Promise<void> | undefined;
  private nodeAgain = false;
  private lastWritten: string | undefined;
  /** updatedAt of the node after our recent status writes: those changes on the feed are our own. */
  private readonly ownUpdates: string[] = [];

  constructor(
    private readonly exchange: ExchangeClient,
    private readonly memory: AgentMemory,
    private readonly snapshot: () => { agentVersion: AgentVersionReport; workloads: ActualWorkload[] },
    private readonly clock: Clock,
    private readonly random: RandomSource,
    private readonly logger: JsonLogger,
    private readonly signal: AbortSignal,
    private readonly observe: StatusObserver = () => undefined,
  ) {}

  /**
   * Writes the status, retrying until the exchange takes it; throws PolicyStopped when the
   * exchange refuses a new step because the policy is disabled or paused.
   */
  async management(nmp: string, report: ManagementStatusReport): Promise<void> {
    // A status the exchange already holds (written before a restart) is not written twice.
    const written = JSON.stringify(report);
    const acknowledged = (this.memory.state.acknowledgedStatuses ??= {});
    if (acknowledged[nmp] === written) return;
    // Seen as it is sent: a peer may learn of it (through the agbot) before the answer arrives.
    this.observe({ nmp, status: report.status, version: report.version, at: this.clock.now() });
    let stopped = false;
    await this.retry(`status ${report.status} of ${nmp}`, async () => {
      try {
        await this.exchange.putManagementStatus(nmp, report);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'MANAGEMENT_POLICY_STOPPED')) throw error;
        stopped = true;
      }
    });
    if (stopped) throw new PolicyStopped(nmp, 'exchange');
    acknowledged[nmp] = written;
    await this.memory.persist();
  }

  /** Writes the node's status when it changed since the last write the exchange took. */
  node(): Promise<void> {
    if (this.nodeWrite) {
      this.nodeAgain = true;
      return this.nodeWrite;
    }
    this.nodeWrite = (async () => {
      do {
        this.nodeAgain = false;
        const { agentVersion, workloads } = this.snapshot();
        const written = JSON.stringify([agentVersion, workloads]);
        if (written === this.lastWritten) continue;
        await this.retry('node status', async () => {
          const node = await this.exchange.reportStatus(agentVersion, workloads);
          this.ownUpdates.push(node.updatedAt);
          if (this.ownUpdates.length > 16) this.ownUpdates.shift();
          this.lastWritten = written;
        });
      } while (this.nodeAgain && !this.signal.aborted);
    })().finally(() => (this.nodeWrite = undefined));
    return this.nodeWrite;
  }

  /** Resolves once no node status write is in flight. */
  async settled(): Promise<void> {
    while (this.nodeWrite) await this.nodeWrite;
  }

  /** Whether a node change on the feed is one of our own status writes. */
  isOwnUpdate(updatedAt: unknown): boolean {
    return typeof updatedAt === 'string' && this.ownUpdates.includes(updatedAt);
  }

  private async retry(what: string, write: () => Promise<unknown>): Promise<void> {
    const backoff = new Backoff(this.random, 250, 15_000);
    while (!this.signal.aborted) {
      try {
        await write();
        return;
      } catch (error) {
        // The exchange refused it for good (a deleted policy or node): nothing to retry.
        if (
          error instanceof ApiError &&
          error.status >= 400 &&
          error.status < 500 &&
          error.status !== 401 &&
          error.status !== 429
        ) {
          this.logger.warn({ error: error.message }, `could not write ${what}`);
          return;
        }
        if (backoff.failures === 0) {
          this.logger.warn({ error: (error as Error).message }, `could not write ${what}; will keep trying`);
        }
        await this.clock.sleep(backoff.next(), this.signal);
      }
    }
  }
}
