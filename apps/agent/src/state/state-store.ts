import { type AgentState } from './agent-state';

/** Where an agent keeps its state: a file for a real node, memory for a simulated one. */
export interface StateStore {
  load(): Promise<AgentState | undefined>;
  save(state: AgentState): Promise<void>;
}

export class MemoryStateStore implements StateStore {
  private state: AgentState | undefined;

  load(): Promise<AgentState | undefined> {
    return Promise.resolve(this.state && (structuredClone(this.state) as AgentState));
  }

  save(state: AgentState): Promise<void> {
    this.state = structuredClone(state);
    return Promise.resolve();
  }
}
