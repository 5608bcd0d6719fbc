/**
 * What a session is planned from, read as the service's user: the org's nodes (labels, rack,
 * HA group) from the exchange, the desired workloads of the hosts chosen and the project of
 * each deployment policy, and, for the replicated policies among them, the nodes the agbot
 * finds compatible (its deploycheck), which says whether the hosts left in service hold them.
 */
import { type Agbot, ApiError, dataOf, type ServiceClient } from '@careen/api-client';
import { type ExchangeClient } from '@careen/service';
import { type HostFacts, type ReplicatedPolicyFacts, type WorkloadFacts } from '../workflow/session-planner';

const PARALLEL_READS = 16;

export class FleetFacts {
  private readonly agbot: ServiceClient<Agbot.paths>;

  constructor(
    private readonly exchange: ExchangeClient,
    agbotUrl: string,
  ) {
    this.agbot = exchange.service<Agbot.paths>(agbotUrl);
  }

  async nodes(org: string): Promise<HostFacts[]> {
    const nodes = await dataOf(this.exchange.api.GET('/v1/orgs/{org}/nodes', { params: { path: { org } } }));
    return nodes.items.map((node) => ({
      id: node.id,
      labels: node.labels,
      rack: node.rack,
      haGroup: node.haGroup,
    }));
  }

  /** Whether the exchange has the agent package of `version`, which an agent-upgrade host action needs. */
  async agentPackagePublished(version: string): Promise<boolean> {
    try {
      await dataOf(this.exchange.api.GET('/v1/agent-packages/{version}', { params: { path: { version } } }));
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** The workloads meant to run on `hosts`, with their projects, and the replicated policies among them. */
  async workloads(
    org: string,
    hosts: readonly string[],
  ): Promise<{ workloads: WorkloadFacts[]; replicated: ReplicatedPolicyFacts[] }> {
    const policies = new Map(
      (
        await dataOf(
          this.exchange.api.GET('/v1/orgs/{org}/deployment-policies', { params: { path: { org } } }),
        )
      ).items.map((policy) => [policy.name, policy]),
    );
    const workloads: WorkloadFacts[] = [];
    for (let start = 0; start < hosts.length; start += PARALLEL_READS) {
      const batch = hosts.slice(start, start + PARALLEL_READS);
      const answers = await Promise.all(
        batch.map(async (host) => ({ host, desired: await this.desiredWorkloads(org, host) })),
      );
      for (const { host, desired } of answers) {
        for (const workload of desired) {
          const policy = policies.get(workload.deploymentPolicy);
          if (policy) workloads.push({ node: host, deploymentPolicy: policy.name, project: policy.project });
        }
      }
    }
    const replicatedNames = [...new Set(workloads.map((workload) => workload.deploymentPolicy))].filter(
      (name) => policies.get(name)?.placement.mode === 'replicas',
    );
    const replicated = await Promise.all(
      replicatedNames.map(async (name): Promise<ReplicatedPolicyFacts> => {
        const policy = policies.get(name)!;
        const check = await dataOf(
          this.agbot.POST('/v1/orgs/{org}/deploycheck', {
            params: { path: { org } },
            body: { deploymentPolicy: name },
          }),
        );
        return {
          name,
          project: policy.project,
          replicas: policy.placement.replicas ?? 1,
          candidates: check.nodes.filter((node) => node.compatible).map((node) => node.node),
        };
      }),
    );
    return { workloads, replicated };
  }

  /** The node's desired workloads, and whether it still reports any of them running. */
  async hostEmpty(org: string, host: string): Promise<boolean> {
    if ((await this.desiredWorkloads(org, host)).length > 0) return false;
    return (await this.reportedWorkloads(org, host)).every(
      (workload) => workload.state === 'failed' || workload.state === 'stopped',
    );
  }

  /**
   * What the host back in service still lacks, or undefined once it runs every workload the
   * agbot placed on it after its uncordon (a placement made while it was cordoned does not count:
   * the agbot may not have taken the uncordon in yet).
   */
  async hostServingLacks(org: string, host: string): Promise<string | undefined> {
    let placed;
    try {
      placed = await dataOf(
        this.agbot.GET('/v1/orgs/{org}/nodes/{node}/placement', { params: { path: { org, node: host } } }),
      );
    } catch (error) {
      // A node removed meanwhile has nothing left to serve.
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
    if (!placed.schedulable) return 'placement has not taken its uncordon in yet';
    if (!placed.delivered) return 'the exchange does not have its workloads yet';
    if (placed.workloads.length === 0) return undefined;
    const running = new Set(
      (await this.reportedWorkloads(org, host))
        .filter((workload) => workload.state === 'running')
        .map((workload) => workload.deploymentPolicy),
    );
    const missing = placed.workloads
      .map((workload) => workload.deploymentPolicy)
      .filter((policy) => !running.has(policy));
    return missing.length > 0 ? `${missing.join(', ')} not running` : undefined;
  }

  /** The workloads the node last reported, with their states. */
  private async reportedWorkloads(org: string, host: string) {
    const node = await dataOf(
      this.exchange.api.GET('/v1/orgs/{org}/nodes/{id}', { params: { path: { org, id: host } } }),
    );
    return node.status?.workloads ?? [];
  }

  private async desiredWorkloads(org: string, host: string): Promise<{ deploymentPolicy: string }[]> {
    const answer = await dataOf(
      this.exchange.api.GET('/v1/orgs/{org}/nodes/{id}/workloads', { params: { path: { org, id: host } } }),
    );
    return answer.items;
  }
}
