/** Runs the node's workloads; the reconciler tells it what should run, it says what does. */
import { type ActualWorkload, type DesiredWorkload } from '../exchange/exchange.types';

export type WorkloadState = 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

export interface WorkloadRuntime {
  readonly name: string;
  /** Starts what is desired and missing (or at another version), stops what is no longer desired. */
  apply(desired: readonly DesiredWorkload[]): Promise<void>;
  /** What runs, with its version and state. */
  actual(): ActualWorkload[];
  /** Called whenever a workload's state changes on its own (a crash, a restart). */
  onChange(listener: () => void): void;
  stopAll(): Promise<void>;
}

/** Identifies a workload across versions: the policy that placed it and the service. */
export function workloadKey(workload: {
  deploymentPolicy?: string;
  service: { org: string; url: string };
}): string {
  return `${workload.deploymentPolicy ?? ''}|${workload.service.org}/${workload.service.url}`;
}
