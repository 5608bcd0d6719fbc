/**
 * The verdicts of a deploy check (`hzn deploycheck`, with `--checkHA` from the HA-group seed):
 * for each node in scope, whether a deployment policy (or a bare service) can run there and
 * why not; for each HA group, whether it would run the service and keep running it while an
 * upgrade rolls through it. Uses placement's own matching so the verdict is what placement does.
 * Pure: reads what it is given, never the database.
 */
import { DeploymentMatcher } from '../placement/deployment-matcher';
import { prepareNode } from '../placement/placement-node';
import { type PlacementNode, type PlacementPolicy } from '../placement/placement.types';
import { ServiceCatalog } from '../placement/service-catalog';
import {
  deploymentPolicyNotFound,
  haGroupNotFound,
  invalidCheck,
  nodeNotFound,
  serviceNotFound,
} from './deploycheck.errors';
import {
  type DeployCheckRequest,
  type DeployCheckResult,
  type DeployCheckSources,
  type GroupVerdict,
  type NodeVerdict,
} from './deploycheck.types';

export class DeployChecker {
  constructor(private readonly clock: () => Date = () => new Date()) {}

  check(request: DeployCheckRequest, sources: DeployCheckSources): DeployCheckResult {
    if ((request.deploymentPolicy === undefined) === (request.service === undefined)) {
      throw invalidCheck('give exactly one of deploymentPolicy and service');
    }
    if (request.haGroup !== undefined && request.node !== undefined) {
      throw invalidCheck('give at most one of haGroup and node');
    }
    const now = this.clock();
    const catalog = new ServiceCatalog(sources.services);
    const { policy, pinned } = this.subject(request, sources, catalog);
    const matcher = new DeploymentMatcher(policy, catalog, pinned);
    const orgNodes = [...sources.nodes].filter((node) => node.org === request.org);
    const scope = this.scope(request, orgNodes);

    const verdicts = scope
      .map((node): NodeVerdict => {
        const explanation = matcher.explain(prepareNode(node, now), now);
        const compatible = explanation.version !== undefined;
        return {
          node: node.id,
          haGroup: node.haGroup,
          compatible,
          deployable: compatible && explanation.unavailable === undefined,
          version: explanation.version ?? null,
          reasons: explanation.reasons,
        };
      })
      .sort((a, b) => compare(a.node, b.node));

    const haGroups = request.checkHA || request.haGroup !== undefined ? groupVerdicts(verdicts) : undefined;
    const summary = {
      nodes: verdicts.length,
      compatible: verdicts.filter((verdict) => verdict.compatible).length,
      deployable: verdicts.filter((verdict) => verdict.deployable).length,
    };
    const versions = new Set(
      verdicts.map((verdict) => verdict.version).filter((v): v is string => v !== null),
    );
    return {
      org: request.org,
      deploymentPolicy: request.deploymentPolicy ?? null,
      service: {
        org: policy.service.org,
        url: policy.service.url,
        version: pinned ?? (versions.size === 1 ? ([...versions][0] as string) : null),
      },
      compatible:
        verdicts.length > 0 &&
        summary.compatible === verdicts.length &&
        (haGroups ?? []).every((group) => group.staysAvailableDuringUpgrade),
      summary,
      nodes: verdicts,
      ...(haGroups ? { haGroups } : {}),
    };
  }

  /** The deployment policy to check, or one standing for a bare service. */
  private subject(
    request: DeployCheckRequest,
    sources: DeployCheckSources,
    catalog: ServiceCatalog,
  ): { policy: PlacementPolicy; pinned?: string } {
    if (request.deploymentPolicy !== undefined) {
      const policy = [...sources.policies].find(
        (candidate) => candidate.org === request.org && candidate.name === request.deploymentPolicy,
      );
      if (!policy) throw deploymentPolicyNotFound(request.org, request.deploymentPolicy);
      return { policy };
    }
    const service = request.service as NonNullable<DeployCheckRequest['service']>;
    // A user sees the services of its own org only.
    if (service.org !== request.org || !catalog.has(service.org, service.url)) {
      throw serviceNotFound(service.org, service.url, service.version);
    }
    if (service.version !== undefined && !catalog.exact(service.org, service.url, service.version)) {
      throw serviceNotFound(service.org, service.url, service.version);
    }
    return {
      policy: {
        org: request.org,
        name: `service ${service.org}/${service.url}`,
        service: { org: service.org, url: service.url, versionRange: '*' },
        placement: { mode: 'all' },
      },
      pinned: service.version,
    };
  }

  private scope(request: DeployCheckRequest, orgNodes: PlacementNode[]): PlacementNode[] {
    if (request.node !== undefined) {
      const node = orgNodes.find((candidate) => candidate.id === request.node);
      if (!node) throw nodeNotFound(request.org, request.node);
      if (!request.checkHA || node.haGroup === null) return [node];
      return orgNodes.filter((candidate) => candidate.haGroup === node.haGroup);
    }
    if (request.haGroup !== undefined) {
      const members = orgNodes.filter((candidate) => candidate.haGroup === request.haGroup);
      if (members.length === 0) throw haGroupNotFound(request.org, request.haGroup);
      return members;
    }
    return orgNodes;
  }
}

function groupVerdicts(verdicts: readonly NodeVerdict[]): GroupVerdict[] {
  const byGroup = new Map<string, NodeVerdict[]>();
  for (const verdict of verdicts) {
    if (verdict.haGroup === null) continue;
    const list = byGroup.get(verdict.haGroup) ?? [];
    list.push(verdict);
    byGroup.set(verdict.haGroup, list);
  }
  return [...byGroup]
    .sort(([a], [b]) => compare(a, b))
    .map(([haGroup, members]): GroupVerdict => {
      const compatibleMembers = members.filter((member) => member.compatible).map((member) => member.node);
      const deployableMembers = members.filter((member) => member.deployable).map((member) => member.node);
      const available = deployableMembers.length >= 1;
      const staysAvailableDuringUpgrade = deployableMembers.length >= 2;
      return {
        haGroup,
        members: members.map((member) => member.node),
        compatibleMembers,
        deployableMembers,
        available,
        staysAvailableDuringUpgrade,
        reason: groupReason(members.length, compatibleMembers, deployableMembers),
      };
    });
}

function groupReason(size: number, compatible: readonly string[], deployable: readonly string[]): string {
  const notCounted = size - compatible.length;
  const heterogeneous = notCounted > 0 ? `; ${notCounted} member(s) not meant to run it are not counted` : '';
  if (deployable.length === 0) {
    return compatible.length === 0
      ? `no member can run the service${heterogeneous}`
      : `members that could run it are cordoned or under maintenance: ${compatible.join(', ')}${heterogeneous}`;
  }
  if (deployable.length === 1) {
    return `only ${deployable[0]} would run the service: an upgrade would interrupt it${heterogeneous}`;
  }
  return `${deployable.length} members would run the service; an upgrade rolls one at a time${heterogeneous}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
