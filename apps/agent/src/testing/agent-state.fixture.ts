/** What the agent's specs start from: a management policy, and a node's memory kept in memory. */
import { type ManagementPolicy } from '../exchange/exchange.types';
import { AgentMemory } from '../state/agent-memory';
import { AGENT_STATE_VERSION, type AgentState } from '../state/agent-state';
import { MemoryStateStore } from '../state/state-store';

/** An enabled policy selecting amd64 nodes, to upgrade to the newest package at once. */
export function managementPolicy(
  name: string,
  overrides: Partial<ManagementPolicy> = {},
  upgrade: Partial<ManagementPolicy['agentUpgradePolicy']> = {},
): ManagementPolicy {
  return {
    org: 'acme',
    name,
    constraints: ['careen.arch == amd64'],
    properties: [],
    patterns: [],
    nodes: [],
    enabled: true,
    paused: false,
    state: 'active',
    resumeWindow: null,
    agentUpgradePolicy: {
      atLeastVersion: 'current',
      start: 'now',
      duration: 0,
      action: 'install',
      ...upgrade,
    },
    lastUpdated: '2026-03-01T10:00:00.000Z',
    ...overrides,
  };
}

/** Node edge-1 of org acme, started once, with `state` over that, saved to `store`. */
export function agentMemory(
  state: Partial<AgentState> = {},
  store: MemoryStateStore = new MemoryStateStore(),
): AgentMemory {
  return new AgentMemory(
    {
      schemaVersion: AGENT_STATE_VERSION,
      org: 'acme',
      nodeId: 'edge-1',
      token: 'edge-1-token',
      starts: 1,
      lastStartedAt: '2026-03-01T09:00:00.000Z',
      ...state,
    },
    store,
  );
}
