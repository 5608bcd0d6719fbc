/**
 * Waits until the agents of a simulated fleet run a deployment policy's workloads, e.g. until
 * the agbot has placed an app and its agents have started it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type SimulatedAgent } from './simulated-fleet';

const LOOK_EVERY_MS = 100;

export interface NodesRunningOptions {
  /** Answer with the nodes that run it by then, however few. */
  timeoutMs: number;
  /** Answers at once (a stop was requested), with the nodes that run it by then. */
  signal?: AbortSignal;
}

/** The nodes that run `deploymentPolicy`'s workloads, once `count` of them do, or earlier as the options say. */
export async function nodesRunning(
  agents: readonly Pick<SimulatedAgent, 'node' | 'runtime'>[],
  deploymentPolicy: string,
  count: number,
  options: NodesRunningOptions,
): Promise<string[]> {
  const running = () =>
    agents
      .filter((agent) =>
        agent.runtime.actual().some((workload) => workload.deploymentPolicy === deploymentPolicy),
      )
      .map((agent) => agent.node);
  const deadline = Date.now() + options.timeoutMs;
  while (running().length < count && Date.now() < deadline && !options.signal?.aborted)
    await sleep(LOOK_EVERY_MS);
  return running();
}
