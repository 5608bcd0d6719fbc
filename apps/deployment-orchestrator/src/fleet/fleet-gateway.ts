/**
 * What the orchestrator reads from and asks of the exchange, as its service user: the org's
 * nodes (tags, labels, rack, HA group, maintenance, last report), whether an agent package
 * exists, and the node-targeted management policies through which nodes download and install
 * (created once, read back, paused, resumed, removed).
 */
import { ApiError, dataOf, type Exchange } from '@careen/api-client';
import { type ExchangeClient } from '@careen/service';
import { exchangeUnavailable } from '../orchestrator.errors';
import { type SelectableNode } from '../strategies/node-selection';

export interface FleetNode extends SelectableNode {
  /** Set while the node is in a maintenance session. */
  maintenance: Record<string, unknown> | null;
  lastHeartbeat: string | null;
  agentVersion: string | null;
}

type NodeAnswer = Exchange.components['schemas']['NodeResponse'];

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
  /** The version is exact: agents running a higher one go down to it. */
  allowDowngrade?: boolean;
}

/** The exchange refused a node policy for a reason that asking again would not change. */
export class PolicyRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PolicyRefused';
  }
}

/**
 * Without an exchange client (no credentials configured) every call is refused as unavailable;
 * an exchange that cannot be reached, or refuses, likewise, with what it said. Creating,
 * pausing, resuming and removing a policy may each be asked again to no effect, so that the
 * drivers can carry a stored command out again after a crash.
 */
export class FleetGateway {
  constructor(private readonly client: ExchangeClient | undefined) {}

  async nodes(org: string): Promise<FleetNode[]> {
    const nodes = await this.orUndefined(this.api.GET('/v1/orgs/{org}/nodes', { params: { path: { org } } }));
    return (nodes?.items ?? []).map(toFleetNode);
  }

  async node(org: string, id: string): Promise<FleetNode | undefined> {
    const node = await this.orUndefined(
      this.api.GET('/v1/orgs/{org}/nodes/{id}', { params: { path: { org, id } } }),
    );
    return node && toFleetNode(node);
  }

  async packageExists(version: string): Promise<boolean> {
    const found = await this.orUndefined(
      this.api.GET('/v1/agent-packages/{version}', { params: { path: { version } } }),
    );
    return found !== undefined;
  }

  /**
   * The enabled management policies with an agent upgrade, by the nodes they apply to: an agent
   * keeps to the policy it took up first and answers another one `conflict`.
   */
  async upgradingPolicies(org: string): Promise<Map<string, string[]>> {
    const listed = await this.orUndefined(
      this.api.GET('/v1/orgs/{org}/management-policies', { params: { path: { org } } }),
    );
    const upgrading = (listed?.items ?? []).filter((policy) => policy.enabled && policy.agentUpgradePolicy);
    const applies = await Promise.all(
      upgrading.map((policy) =>
        this.orUndefined(
          this.api.GET('/v1/orgs/{org}/management-policies/{name}/nodes', {
            params: { path: { org, name: policy.name } },
          }),
        ),
      ),
    );
    const byNode = new Map<string, string[]>();
    upgrading.forEach((policy, index) => {
      for (const node of applies[index]?.items ?? [])
        byNode.set(node, [...(byNode.get(node) ?? []), policy.name]);
    });
    return byNode;
  }

  /** Creates the policy unless it exists: after a restart the nodes are not asked again. */
  async ensurePolicy(org: string, policy: NodePolicy): Promise<void> {
    const path = { params: { path: { org, name: policy.name } } };
    if (await this.orUndefined(this.api.GET('/v1/orgs/{org}/management-policies/{name}', path))) return;
    await this.refusedForGood(
      this.api.PUT('/v1/orgs/{org}/management-policies/{name}', {
        ...path,
        body: {
          description: policy.description,
          enabled: true,
          nodes: policy.nodes,
          agentUpgradePolicy: {
            atLeastVersion: policy.version,
            start: 'now',
            action: policy.action,
            ...(policy.location && { location: policy.location }),
            ...(policy.allowDowngrade === true && { allowDowngrade: true }),
          },
        },
      }),
    );
  }

  /** Every node's status for the policy; undefined when the policy is gone. */
  async statuses(org: string, name: string): Promise<PolicyStatus[] | undefined> {
    const statuses: PolicyStatus[] = [];
    for (let after: string | null = null; ;) {
      const page: { items: PolicyStatus[]; next: string | null } | undefined = await this.orUndefined(
        this.api.GET('/v1/orgs/{org}/management-policies/{name}/statuses', {
          params: { path: { org, name }, query: after ? { after } : {} },
        }),
      );
      if (!page) return undefined;
      statuses.push(...page.items);
      if (!page.next) return statuses;
      after = page.next;
    }
  }

  /** Pauses or resumes the policy's rollout; a policy that is gone needs neither. */
  async setPaused(org: string, name: string, paused: boolean): Promise<void> {
    const path = { params: { path: { org, name } } };
    await this.orUndefined(
      paused
        ? this.api.POST('/v1/orgs/{org}/management-policies/{name}/pause', path)
        : this.api.POST('/v1/orgs/{org}/management-policies/{name}/resume', { ...path, body: {} }),
    );
  }

  async removePolicy(org: string, name: string): Promise<void> {
    await this.orUndefined(
      this.api.DELETE('/v1/orgs/{org}/management-policies/{name}', { params: { path: { org, name } } }),
    );
  }

  private get api(): ExchangeClient['api'] {
    if (!this.client)
      throw exchangeUnavailable(
        'the orchestrator has no exchange credentials (CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD): it cannot read nodes or send upgrades',
      );
    return this.client.api;
  }

  /**
   * The answer; a PolicyRefused when the exchange refused the request as it is (400: no package
   * of the version any more, say), which asking again would not change.
   */
  private async refusedForGood<T>(
    call: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T | undefined> {
    try {
      return await dataOf(call);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400)
        throw new PolicyRefused(error.body?.message ?? error.message);
      return notFoundOrUnavailable(error);
    }
  }

  /** The answer; undefined when the exchange has no such thing. */
  private async orUndefined<T>(
    call: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T | undefined> {
    try {
      return await dataOf(call);
    } catch (error) {
      return notFoundOrUnavailable(error);
    }
  }
}

/** Undefined for the exchange's 404; any other failure is the exchange not doing what was asked. */
function notFoundOrUnavailable(error: unknown): undefined {
  if (error instanceof ApiError && error.status === 404) return undefined;
  throw exchangeUnavailable(`the exchange did not do what was asked: ${(error as Error).message}`);
}

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
