/**
 * `careen-agent busy|free`: the node declares itself busy (a backup, a resize, a restore under
 * way) so that no disruption starts on it, or free again, with its own credentials — the
 * agent's settings and state folder, so a workload on the node can run it without knowing them.
 */
import { dataOf, type Agbot, serviceClient } from '@careen/api-client';
import { type AgentConfig } from '../agent.config';
import { AgentStateError, type AgentStateStore } from '../state/agent-state.store';

export interface BusyAnswer {
  node: string;
  reason: string;
  until: string;
}

/** The agbot, as the node itself: its id and token from the settings, else from its state. */
async function asTheNode(config: AgentConfig, store: AgentStateStore) {
  if (!config.CAREEN_AGBOT_URL) throw new AgentStateError('no agbot: set CAREEN_AGBOT_URL');
  const state = await store.load();
  const node = config.CAREEN_AGENT_NODE_ID ?? state?.nodeId;
  const token = config.CAREEN_AGENT_TOKEN ?? state?.token;
  if (!node || !token)
    throw new AgentStateError(
      'no node identity: set CAREEN_AGENT_NODE_ID and CAREEN_AGENT_TOKEN, or run the agent once',
    );
  const authorization = `Basic ${Buffer.from(`${config.CAREEN_AGENT_ORG}/${node}:${token}`).toString('base64')}`;
  const api = serviceClient<Agbot.paths>(config.CAREEN_AGBOT_URL, { headers: { authorization } });
  return { api, path: { org: config.CAREEN_AGENT_ORG, node } };
}

export async function declareBusy(
  config: AgentConfig,
  store: AgentStateStore,
  reason: string,
  seconds: number,
): Promise<BusyAnswer> {
  const { api, path } = await asTheNode(config, store);
  return dataOf(api.PUT('/v1/orgs/{org}/nodes/{node}/busy', { params: { path }, body: { reason, seconds } }));
}

export async function declareFree(config: AgentConfig, store: AgentStateStore): Promise<void> {
  const { api, path } = await asTheNode(config, store);
  await dataOf(api.DELETE('/v1/orgs/{org}/nodes/{node}/busy', { params: { path } }));
}
