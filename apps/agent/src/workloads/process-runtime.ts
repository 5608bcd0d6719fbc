/**
 * `process`: each workload is a child process of the agent, started with the configured
 * command and the workload in its environment (CAREEN_WORKLOAD_SERVICE, _VERSION, _ORG,
 * _DEPLOYMENT_POLICY). A process that exits is started again with backoff; one that keeps
 * failing (five exits within a minute) is reported `failed` until its desired state changes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Backoff } from '../core/backoff';
import { type Clock, type RandomSource } from '../core/clock';
import { type ActualWorkload, type DesiredWorkload } from '../exchange/exchange.types';
import { type WorkloadRuntime, type WorkloadState, workloadKey } from './workload-runtime';

interface Running {
  desired: DesiredWorkload;
  child: ChildProcess | undefined;
  state: WorkloadState;
  exits: number[];
  backoff: Backoff;
  stopping: boolean;
}

const FAILED_AFTER_EXITS = 5;
const EXIT_WINDOW_MS = 60_000;

export class ProcessRuntime implements WorkloadRuntime {
  readonly name = 'process';
  private readonly workloads = new Map<string, Running>();
  private readonly listeners: (() => void)[] = [];

  constructor(
    /** Absent: no workload can run here, and each is reported `failed`. */
    private readonly command: string | undefined,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  async apply(desired: readonly DesiredWorkload[]): Promise<void> {
    const wanted = new Map(desired.map((workload) => [workloadKey(workload), workload]));
    for (const [key, running] of this.workloads) {
      const next = wanted.get(key);
      if (!next || next.service.version !== running.desired.service.version) {
        await this.stop(running);
        this.workloads.delete(key);
      }
    }
    for (const [key, workload] of wanted) {
      if (this.workloads.has(key)) continue;
      const running: Running = {
        desired: workload,
        child: undefined,
        state: 'starting',
        exits: [],
        backoff: new Backoff(this.random, 200, 10_000),
        stopping: false,
      };
      this.workloads.set(key, running);
      this.start(running);
    }
  }

  actual(): ActualWorkload[] {
    return [...this.workloads.values()].map(({ desired, state }) => ({
      deploymentPolicy: desired.deploymentPolicy,
      service: { ...desired.service },
      state,
    }));
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.workloads.values()].map((running) => this.stop(running)));
    this.workloads.clear();
  }

  private start(running: Running): void {
    const { service, deploymentPolicy } = running.desired;
    if (!this.command) return this.setState(running, 'failed');
    const child = spawn(this.command, {
      shell: true,
      stdio: 'ignore',
      // Only PATH is passed on: the agent's own variables (its node token) stay with the agent.
      env: {
        PATH: process.env.PATH ?? '',
        CAREEN_WORKLOAD_SERVICE: service.url,
        CAREEN_WORKLOAD_VERSION: service.version,
        CAREEN_WORKLOAD_ORG: service.org,
        CAREEN_WORKLOAD_DEPLOYMENT_POLICY: deploymentPolicy,
      },
    });
    running.child = child;
    child.once('spawn', () => this.setState(running, 'running'));
    child.once('error', () => undefined);
    child.once('exit', () => {
      running.child = undefined;
      if (running.stopping) return;
      const now = this.clock.now().getTime();
      running.exits = [...running.exits.filter((at) => now - at < EXIT_WINDOW_MS), now];
      if (running.exits.length >= FAILED_AFTER_EXITS) return this.setState(running, 'failed');
      this.setState(running, 'restarting');
      void this.clock.sleep(running.backoff.next()).then(() => {
        if (!running.stopping) this.start(running);
      });
    });
  }

  private async stop(running: Running): Promise<void> {
    running.stopping = true;
    const child = running.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }

  private setState(running: Running, state: WorkloadState): void {
    running.state = state;
    for (const listener of this.listeners) listener();
  }
}
