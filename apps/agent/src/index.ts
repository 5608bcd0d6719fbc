/** @careen/agent: the edge agent's core and the simulated fleet built on it. */
export { AgentCore, type AgentCoreOptions } from './agent-core';
export {
  simulatedNodeIds,
  startSimulatedFleet,
  tokenOf,
  type SimulatedAgent,
  type SimulatedFleet,
  type SimulatedFleetOptions,
  type TimelineEntry,
} from './simulator/simulated-fleet';
export { nodesRunning } from './simulator/nodes-running';
export { simulatedAgentPackage } from './simulator/simulated-package';
