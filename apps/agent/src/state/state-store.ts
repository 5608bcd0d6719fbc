import { type AgentState } from './agent-state';

/**
 * Where an agent keeps its state: a file for a real node, memory for a simulated one. It is
 * given the state as the text `stateText` made of it, taken when the state was as it is to be
 * kept: the state may change again while the write waits its turn.
 */
export interface StateStore {
  load(): Promise<AgentState | undefined>;
  save(text: string): Promise<void>;
}

/** The state as a store keeps it: JSON, indented for people who read the file. */
export function stateText(state: AgentState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

export class MemoryStateStore implements StateStore {
  private text: string | undefined;

  load(): Promise<AgentState | undefined> {
    return Promise.resolve(this.text === undefined ? undefined : (JSON.parse(this.text) as AgentState));
  }

  save(text: string): Promise<void> {
    this.text = text;
    return Promise.resolve();
  }
}
