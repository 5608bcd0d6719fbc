/**
 * Turns a session request and what the exchange says of the org's nodes and workloads into the
 * plan the workflow runs: which hosts, in which HA groups, which instances on them and which
 * projects own them, which of them must down-scale first, and how long each is waited for. Hosts come by id or by a
 * selector (labels, racks, HA groups: criteria intersect, an omitted one is ignored, and at
 * least one must be given). Every
 * problem is named with its path, all at once; nothing is guessed.
 */
import { policyOfInstance, type ReplyTimeoutPolicy } from '@careen/contracts';
import {
  type InstanceLimits,
  type PlannedInstance,
  type PlannedInstanceGroup,
  type PlannedProject,
  type SessionPlan,
} from './workflow.types';

export interface HostFacts {
  id: string;
  haGroup: string | null;
  labels: Record<string, string>;
  rack: string | null;
}

/** A desired workload of a host, with the project of its deployment policy. */
export interface WorkloadFacts {
  node: string;
  deploymentPolicy: string;
  project: string;
}

/** A deployment policy that keeps a number of replicas, and the nodes it may place them on. */
export interface ReplicatedPolicyFacts {
  name: string;
  project: string;
  replicas: number;
  candidates: readonly string[];
}

export interface HostSelector {
  labels?: Record<string, string>;
  racks?: string[];
  haGroups?: string[];
}

export interface PlanRequest {
  hosts?: string[];
  selector?: HostSelector;
  actionsAt: string;
  /** No time was given: start once every project has answered MAINTENANCE. */
  startWhenReady?: boolean;
  maxParallelHosts: number;
  replyTimeoutSeconds: number;
  replyTimeoutPolicy: ReplyTimeoutPolicy;
  /** Per project: its own timeout and policy, where they differ from the session's. */
  projects?: Record<string, { replyTimeoutSeconds?: number; replyTimeoutPolicy?: ReplyTimeoutPolicy }>;
}

/** What the projects declared of their instances (Fenix's constraints), as a plan takes it. */
export interface DeclaredConstraints {
  groups: { id: string; project: string; maxImpacted: number; recoverySeconds: number }[];
  instances: {
    id: string;
    project: string;
    group: string | null;
    leadSeconds: number;
    maxInterruptionSeconds: number;
    migrationType: string;
  }[];
}

export interface PlanFacts {
  nodes: readonly HostFacts[];
  workloads: readonly WorkloadFacts[];
  /** Whether anyone listens to a project's events. */
  subscribed: (project: string) => boolean;
  /** Policies of `replicas` mode (those of mode `all` run on every node anyway). */
  replicated?: readonly ReplicatedPolicyFacts[];
  /** The instance groups and instances the projects declared. */
  constraints?: DeclaredConstraints;
}

export interface PlanProblem {
  path: string;
  problem: string;
}

export type PlanOutcome = { plan: SessionPlan } | { problems: PlanProblem[] };

export function planSession(request: PlanRequest, facts: PlanFacts): PlanOutcome {
  const problems: PlanProblem[] = [];
  const known = new Map(facts.nodes.map((node) => [node.id, node]));
  let chosen: HostFacts[] = [];
  if ((request.hosts === undefined) === (request.selector === undefined)) {
    problems.push({
      path: 'hosts',
      problem: 'give either hosts (a list of node ids) or selector, not both or neither',
    });
  } else if (request.hosts) {
    const seen = new Set<string>();
    request.hosts.forEach((id, index) => {
      if (seen.has(id)) problems.push({ path: `hosts[${index}]`, problem: `host "${id}" is listed twice` });
      else if (!known.has(id))
        problems.push({ path: `hosts[${index}]`, problem: `no node "${id}" in the org` });
      seen.add(id);
    });
    chosen = [...seen].flatMap((id) => known.get(id) ?? []);
  } else if (!namesCriterion(request.selector!)) {
    // Taking every host of the org out of service is never what an empty selector meant.
    problems.push({
      path: 'selector',
      problem: 'the selector names no criterion: give labels, racks or ha_groups',
    });
  } else {
    chosen = facts.nodes.filter((node) => matches(request.selector!, node));
    if (chosen.length === 0)
      problems.push({ path: 'selector', problem: 'the selector matches no node of the org' });
  }
  if (request.hosts?.length === 0) problems.push({ path: 'hosts', problem: 'the list of hosts is empty' });
  for (const project of Object.keys(request.projects ?? {})) {
    if (!facts.workloads.some((workload) => workload.project === project))
      problems.push({
        path: `projects.${project}`,
        problem: `project "${project}" has no instance on the session's hosts`,
      });
  }
  if (problems.length > 0) return { problems };

  const hostIds = new Set(chosen.map((node) => node.id));
  const instances: PlannedInstance[] = facts.workloads
    .filter((workload) => hostIds.has(workload.node))
    .map((workload) => ({
      id: `${workload.deploymentPolicy}@${workload.node}`,
      project: workload.project,
      host: workload.node,
    }));
  const projects: PlannedProject[] = [...new Set(instances.map((instance) => instance.project))]
    .sort()
    .map((id) => ({
      id,
      subscribed: facts.subscribed(id),
      replyTimeoutSeconds: request.projects?.[id]?.replyTimeoutSeconds ?? request.replyTimeoutSeconds,
      onNoAck: request.projects?.[id]?.replyTimeoutPolicy ?? request.replyTimeoutPolicy,
    }));
  const instanceLimits = instanceLimitsOf(instances, facts.constraints);
  const instanceGroups = instanceGroupsOf(instances, facts.constraints);
  return {
    plan: {
      hosts: chosen.map((node) => ({ id: node.id, haGroup: node.haGroup })),
      instances,
      projects,
      actionsAt: request.actionsAt,
      ...(request.startWhenReady ? { startWhenReady: true } : {}),
      maxParallelHosts: request.maxParallelHosts,
      downScaleProjects: mustShrink(facts.replicated ?? [], hostIds, request.maxParallelHosts),
      ...(instanceGroups.length > 0 ? { instanceGroups } : {}),
      ...(Object.keys(instanceLimits).length > 0 ? { instanceLimits } : {}),
    },
  };
}

/** The limits of the session's instances that their own project declared, by id. */
function instanceLimitsOf(
  instances: readonly PlannedInstance[],
  constraints: DeclaredConstraints | undefined,
): Record<string, InstanceLimits> {
  const byId = new Map((constraints?.instances ?? []).map((each) => [each.id, each]));
  return Object.fromEntries(
    instances.flatMap((instance) => {
      const declared = byId.get(instance.id);
      if (declared?.project !== instance.project) return [];
      const { leadSeconds, maxInterruptionSeconds, migrationType } = declared;
      return [[instance.id, { leadSeconds, maxInterruptionSeconds, migrationType }]];
    }),
  );
}

/**
 * The declared groups with instances in the session, each with those instances: every instance
 * of a deployment policy that one of the group's declared instances names (its id
 * `<deployment policy>@<host>`), of the group's own project, wherever the policy runs now — as
 * the agbot counts them (InstanceGroupDeclared).
 */
function instanceGroupsOf(
  instances: readonly PlannedInstance[],
  constraints: DeclaredConstraints | undefined,
): PlannedInstanceGroup[] {
  // Each group's policies, from its own project's declared instances, read once.
  const policiesOf = new Map<string, Set<string>>();
  for (const each of constraints?.instances ?? []) {
    const policy = policyOfInstance(each.id);
    if (each.group === null || policy === undefined) continue;
    const key = `${each.project}/${each.group}`;
    policiesOf.set(key, (policiesOf.get(key) ?? new Set()).add(policy));
  }
  return (constraints?.groups ?? []).flatMap((group) => {
    const policies = policiesOf.get(`${group.project}/${group.id}`) ?? new Set<string>();
    const members = instances
      .filter((each) => each.project === group.project && policies.has(policyOfInstance(each.id) ?? ''))
      .map((each) => each.id);
    return members.length > 0 ? [{ ...group, instances: members }] : [];
  });
}

/**
 * Projects with a replicated policy that cannot keep its replicas while the session has hosts
 * out: up to `maxParallelHosts` of its candidates that the session maintains are out at once,
 * and the candidates left must still number its replicas. Those projects are asked to
 * DOWN_SCALE before the first host goes.
 */
function mustShrink(
  policies: readonly ReplicatedPolicyFacts[],
  hosts: ReadonlySet<string>,
  maxParallelHosts: number,
): string[] {
  const shrinking = new Set<string>();
  for (const policy of policies) {
    const maintained = policy.candidates.filter((node) => hosts.has(node)).length;
    const out = Math.min(maintained, maxParallelHosts);
    if (out > 0 && policy.candidates.length - out < policy.replicas) shrinking.add(policy.project);
  }
  return [...shrinking].sort();
}

function matches(selector: HostSelector, node: HostFacts): boolean {
  const labels = Object.entries(selector.labels ?? {});
  if (labels.some(([key, value]) => node.labels[key] !== value)) return false;
  if (selector.racks?.length && (node.rack === null || !selector.racks.includes(node.rack))) return false;
  if (selector.haGroups?.length && (node.haGroup === null || !selector.haGroups.includes(node.haGroup)))
    return false;
  return true;
}

function namesCriterion(selector: HostSelector): boolean {
  return (
    Object.keys(selector.labels ?? {}).length > 0 ||
    (selector.racks?.length ?? 0) > 0 ||
    (selector.haGroups?.length ?? 0) > 0
  );
}
