/** `simulated`: workloads that exist only in memory and run as soon as they are asked to. */
import { type ActualWorkload, type DesiredWorkload } from '../exchange/exchange.types';
import { type WorkloadRuntime, workloadKey } from './workload-runtime';

export class SimulatedRuntime implements WorkloadRuntime {
  readonly name = 'simulated';
  private running = new Map<string, ActualWorkload>();

  apply(desired: readonly DesiredWorkload[]): Promise<void> {
    this.running = new Map(
      desired.map((workload) => [
        workloadKey(workload),
        { deploymentPolicy: workload.deploymentPolicy, service: { ...workload.service }, state: 'running' },
      ]),
    );
    return Promise.resolve();
  }

  actual(): ActualWorkload[] {
    return [...this.running.values()];
  }

  onChange(): void {
    // Simulated workloads never change on their own.
  }

  stopAll(): Promise<void> {
    this.running.clear();
    return Promise.resolve();
  }
}
