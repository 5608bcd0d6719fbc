import { AgentMemory } from './agent-memory';
import { AGENT_STATE_VERSION, type AgentState } from './agent-state';
import { MemoryStateStore } from './state-store';

describe('the agent memory', () => {
  it('keeps the state as it was when written, whatever changes while the write waits', async () => {
    const store = new MemoryStateStore();
    const state = {
      schemaVersion: AGENT_STATE_VERSION,
      org: 'acme',
      nodeId: 'n1',
      token: 't',
      starts: 1,
    } as AgentState;
    const memory = new AgentMemory(state, store);
    const written = memory.persist();
    memory.markFailed('1.1.0');
    await written;
    expect(await store.load()).toMatchObject({ nodeId: 'n1', starts: 1 });
    expect((await store.load())?.failedVersions).toBeUndefined();

    await memory.persist();
    const loaded = await store.load();
    expect(loaded?.failedVersions).toEqual(['1.1.0']);
    // What load answers is the agent's own copy.
    loaded!.failedVersions!.push('9.9.9');
    expect((await store.load())?.failedVersions).toEqual(['1.1.0']);
  });
});
