/**
 * What the orchestrator reads from and asks of the exchange, as its service user: the org's
 * nodes (tags, labels, rack, HA group, maintenance, last report), whether an agent package
 * exists, and the node-targeted management policies through which nodes download and install
 * (created once, read back, paused, resumed, removed).
 */
import { ExchangeRequestError, type ExchangeClient } from '@careen/service';
import { exchangeUnavailable } from '../orchestrator.errors';
import { type SelectableNode } from '../strategies/node-selection';

export interface FleetNode extends SelectableNode {
  /** Set while the node is in a maintenance session. */
  maintenance: Record<string, unknown> | null;
  lastHeartbeat: string | null;
  agentVersion: string | null;
}

interface NodeAnswer {
  id: string;
  tags: string[];
  labels: Record<string, string>;
  rack: string | null;
  haGroup: string | null;
  maintenance: Record<string, unknown> | null;
  status: { lastHeartbeat?: string; agentVersion?: { package?: string } } | null;
}

export interface PolicyStatus {
  node: string;
  status: string;
  version: string | null;
  error: string | null;
}

export interface NodePolicy {
  name: string;
  nodes: string[];
  version: string;
  action: 'download' | 'install';
  description: string;
  location?: string;
}

/**
 * Without an exchange client (no credentials configured) every call is refused as unavailable;
 * an exchange that cannot be reached, or refuses, likewise, with what it said.
 */
export class FleetGateway {
  constructor(private readonly client: ExchangeClient | undefined) {}

  async nodes(org: string): Promise<FleetNode[]> {
    const nodes = await this.orUndefined(this.exchange.list<NodeAnswer>(org, 'nodes'));
    return (nodes ?? []).map(toFleetNode);
  }

  async node(org: string, id: string): Promise<FleetNode | undefined> {
    const node = await this.orUndefined(
      this.exchange.call<NodeAnswer>('GET', `${orgPath(org)}/nodes/${encodeURIComponent(id)}`),
    );
    return node && toFleetNode(node);
  }

  async packageExists(version: string): Promise<boolean> {
    const found = await this.orUndefined(
      this.exchange.call<object>('GET', `/v1/agent-packages/${encodeURIComponent(version)}`),
    );
    return found !== undefined;
  }

  /** Creates the policy unless it exists: after a restart the nodes are not asked again. */
  async ensurePolicy(org: string, policy: NodePolicy): Promise<void> {
    const path = policyPath(org, policy.name);
    if (await this.orUndefined(this.exchange.call<object>('GET', path))) return;
    await this.orUndefined(
      this.exchange.call('PUT', path, {
        description: policy.description,
        enabled: true,
        nodes: policy.nodes,
        agentUpgradePolicy: {
          atLeastVersion: policy.version,
          start: 'now',
          action: policy.action,
          ...(policy.location && { location: policy.location }),
        },
      }),
    );
  }

  /** Every node's status for the policy; undefined when the policy is gone. */
  async statuses(org: string, name: string): Promise<PolicyStatus[] | undefined> {
    const statuses: PolicyStatus[] = [];
    for (let after: string | null = null; ;) {
      const query: string = after ? `?after=${encodeURIComponent(after)}` : '';
      const page = await this.orUndefined(
        this.exchange.call<{ items: PolicyStatus[]; next: string | null }>(
          'GET',
          `${policyPath(org, name)}/statuses${query}`,
        ),
      );
      if (!page) return undefined;
      statuses.push(...page.items);
      if (!page.next) return statuses;
      after = page.next;
    }
  }

  /** Pauses or resumes the policy's rollout; a policy that is gone needs neither. */
  async setPaused(org: string, name: string, paused: boolean): Promise<void> {
    await this.orUndefined(
      this.exchange.call('POST', `${policyPath(org, name)}/${paused ? 'pause' : 'resume'}`, {}),
    );
  }

  async removePolicy(org: string, name: string): Promise<void> {
    await this.orUndefined(this.exchange.call('DELETE', policyPath(org, name)));
  }

  private get exchange(): ExchangeClient {
    if (!this.client)
      throw exchangeUnavailable(
        'the orchestrator has no exchange credentials (CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD): it cannot read nodes or send upgrades',
      );
    return this.client;
  }

  /** The answer; undefined when the exchange has no such thing. */
  private async orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof ExchangeRequestError && error.status === 404) return undefined;
      throw exchangeUnavailable(`the exchange did not do what was asked: ${(error as Error).message}`);
    }
  }
}

const orgPath = (org: string) => `/v1/orgs/${encodeURIComponent(org)}`;
const policyPath = (org: string, name: string) =>
  `${orgPath(org)}/management-policies/${encodeURIComponent(name)}`;

function toFleetNode(node: NodeAnswer): FleetNode {
  return {
    id: node.id,
    tags: node.tags,
    labels: node.labels,
    rack: node.rack,
    haGroup: node.haGroup,
    maintenance: node.maintenance,
    lastHeartbeat: node.status?.lastHeartbeat ?? null,
    agentVersion: node.status?.agentVersion?.package ?? null,
  };
}
