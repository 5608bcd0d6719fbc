/**
 * The fleet bench's simulated agents, spread over processes of their own (fleet-worker.ts), so
 * that a large fleet is not limited by one simulator's event loop. Process k runs its slice of
 * the fleet under the node prefix `sim<k>` with HA groups of its own; this side adds up what
 * they report.
 */
import { simulatedNodeIds } from '@careen/agent/src/index';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { type WorkerReport, type WorkerSettings } from './fleet-worker';
import { inTurn } from './round-robin';
import { cpuSeconds, profileFlags } from './service-process';

const REPO = resolve(__dirname, '..', '..');

export interface SimulatorSettings extends Omit<
  WorkerSettings,
  'nodes' | 'haGroups' | 'nodePrefix' | 'startRate' | 'sourceBlock' | 'exchangeUrl'
> {
  /**
   * The exchange replicas' own addresses: process k's agents reach replica k (round robin), as
   * a Service's balancer in the kernel spreads connections without holding them. A proxy in a
   * process would hold two descriptors for each agent's connection.
   */
  exchangeUrls: readonly string[];
  agents: number;
  groupSize: number;
  processes: number;
  /** Agents started per second over all processes. */
  startRate: number;
}

interface Slice {
  prefix: string;
  nodes: number;
}

/** The processes' slices of the fleet: as even as the count allows. */
function slicesOf(agents: number, processes: number): Slice[] {
  return Array.from({ length: processes }, (_, k) => ({
    prefix: `sim${k + 1}`,
    nodes: Math.floor(agents / processes) + (k < agents % processes ? 1 : 0),
  })).filter((slice) => slice.nodes > 0);
}

/** Every node id the fleet will use, for inserting the nodes before it starts. */
export function simulatorNodeIds(agents: number, processes: number): string[] {
  return slicesOf(agents, processes).flatMap((slice) => simulatedNodeIds(slice.nodes, slice.prefix));
}

export class SimulatorProcesses {
  /** Requests sent, per target, since the start. */
  readonly requests = { exchange: 0, agbot: 0 };
  /** When a management-policy change reached an agent (epoch ms), in arrival order. */
  readonly policySeenAt: number[] = [];
  /** Changes given to an agent out of commit order since the start: must stay 0. */
  outOfOrder = 0;
  /** A few of them, each with the agent's previous page and the page it came in. */
  readonly outOfOrderCases: string[] = [];
  /** Warnings the agents logged since the start, by message. */
  readonly warnings: Record<string, number> = {};
  private readonly latest = new Map<ChildProcess, WorkerReport>();

  private constructor(private readonly children: ChildProcess[]) {
    for (const child of children)
      child.on('message', (message: WorkerReport | { kind: 'started' }) => {
        if (message.kind !== 'report') return;
        this.requests.exchange += message.requests.exchange;
        this.requests.agbot += message.requests.agbot;
        this.policySeenAt.push(...message.policySeenAt);
        this.outOfOrder += message.outOfOrder;
        this.outOfOrderCases.push(...message.outOfOrderCases);
        for (const [warning, count] of Object.entries(message.warnings))
          this.warnings[warning] = (this.warnings[warning] ?? 0) + count;
        this.latest.set(child, message);
      });
  }

  /** Starts every process and waits until each has formed its groups and begun starting agents. */
  static async start(settings: SimulatorSettings): Promise<SimulatorProcesses> {
    const { agents, groupSize, processes, startRate, exchangeUrls, ...shared } = settings;
    const slices = slicesOf(agents, processes);
    const children = slices.map((slice, k) => {
      const worker: WorkerSettings = {
        ...shared,
        exchangeUrl: inTurn(exchangeUrls, k),
        sourceBlock: k + 1,
        nodes: slice.nodes,
        nodePrefix: slice.prefix,
        haGroups: Math.ceil(slice.nodes / groupSize),
        startRate: startRate / slices.length,
      };
      return spawn(
        process.execPath,
        [
          ...profileFlags(),
          '-r',
          '@swc-node/register',
          join(__dirname, 'fleet-worker.ts'),
          JSON.stringify(worker),
        ],
        { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      );
    });
    const simulator = new SimulatorProcesses(children);
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((started, failed) => {
            const exited = (code: number | null) =>
              failed(new Error(`a simulator process exited (${code}) at start`));
            child.once('exit', exited);
            // `started` is the first message a worker sends.
            child.once('message', () => {
              child.off('exit', exited);
              started();
            });
          }),
      ),
    );
    return simulator;
  }

  /** Agents that have read the feed to its head, over all processes. */
  caughtUp(): number {
    return [...this.latest.values()].reduce((sum, report) => sum + report.caughtUp, 0);
  }

  /** Agents per running version, over all processes. */
  versions(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const report of this.latest.values())
      for (const [version, count] of Object.entries(report.versions))
        counts[version] = (counts[version] ?? 0) + count;
    return counts;
  }

  /** CPU seconds the simulator processes have used so far. */
  cpuSeconds(): number {
    return this.children.reduce(
      (sum, child) => sum + (child.exitCode === null ? cpuSeconds(child.pid!) : 0),
      0,
    );
  }

  /** Throws when a simulator process has died. */
  assertAlive(): void {
    for (const child of this.children)
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`a simulator process exited (${child.signalCode ?? child.exitCode})`);
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.send('stop');
        await exited;
      }),
    );
  }
}
