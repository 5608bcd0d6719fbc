/**
 * Decides which nodes run which deployment policy, and at which service version. Holds the
 * fleet, the policies and the current assignments in memory so that one changed node, policy
 * or service set recomputes only what it can affect. Pure: no I/O, the clock is injected.
 *
 * Rules: a node is a candidate for a policy when it is in the policy's org, accepts workloads
 * (schedulable and not under maintenance) and is bidirectionally compatible with the policy's
 * properties and constraints ANDed with those of the service version selected for the node's
 * arch (the newest within the policy's version range). `all` places on every candidate;
 * `replicas: N` on N candidates spread over racks, keeping replicas where they are whenever
 * their node is still a candidate. A replica placed anew (added, or moved off a node that is no
 * longer a candidate) does not go to a node that already holds as many instances of one of its
 * policy's instance groups as the group allows there (anti-affinity: one); replicas already
 * placed stay where they are.
 */
import { AssignmentTracker } from './assignment-tracker';
import { DeploymentMatcher } from './deployment-matcher';
import { acceptsWorkloads } from './node-availability';
import { type PreparedNode, prepareNode } from './placement-node';
import {
  type DesiredWorkload,
  type InstanceGroupRule,
  type NodeWorkloads,
  type PlacementInput,
  type PlacementNode,
  type PlacementPolicy,
  type PlacementService,
  type PolicyPlacement,
  scopedKey,
  splitKey,
} from './placement.types';
import { fnv1a, spreadReplicas } from './replica-spreader';
import { ServiceCatalog } from './service-catalog';

/** An instance group as one of its policies sees it: its policies' names and its limit per node. */
interface GroupLimit {
  readonly policies: ReadonlySet<string>;
  readonly perHost: number;
}

interface PolicyState {
  readonly key: string;
  readonly seed: number;
  policy: PlacementPolicy;
  matcher: DeploymentMatcher;
  /** Candidate node keys with the version each would run. */
  readonly candidates: Map<string, string>;
  /** Node keys holding the policy, with their version. */
  readonly assigned: Map<string, string>;
  /** One workload object per version, shared by every node that runs it. */
  readonly workloads: Map<string, DesiredWorkload>;
}

export class PlacementEngine {
  private catalog = new ServiceCatalog([]);
  private readonly nodes = new Map<string, PreparedNode>();
  private readonly nodesByOrg = new Map<string, Map<string, PreparedNode>>();
  /** The nodes with maintenance windows: the only ones whose availability moves with time. */
  private readonly windowed = new Set<string>();
  private readonly policies = new Map<string, PolicyState>();
  private readonly policiesByOrg = new Map<string, Set<string>>();
  /** Per node key: its workloads by policy name. */
  private readonly perNode = new Map<string, Map<string, DesiredWorkload>>();
  /** Per policy key: the instance groups that limit where its new replicas go. */
  private readonly groupsOf = new Map<string, GroupLimit[]>();
  private groupsKey = '[]';

  constructor(private readonly clock: () => Date = () => new Date()) {}

  /**
   * Places everything from scratch, keeping replicas where `input.current` has them when they
   * may stay. Answers the desired workloads of every node, including nodes that get none.
   */
  load(input: PlacementInput): NodeWorkloads[] {
    this.nodes.clear();
    this.nodesByOrg.clear();
    this.windowed.clear();
    this.policies.clear();
    this.policiesByOrg.clear();
    this.perNode.clear();
    this.catalog = new ServiceCatalog(input.services);
    this.indexGroups(input.instanceGroups ?? []);
    const now = this.clock();
    for (const node of input.nodes) this.addNode(prepareNode(node, now));

    const holders = new Map<string, string[]>();
    for (const { org, node, workloads } of input.current ?? []) {
      for (const workload of workloads) {
        const key = scopedKey(org, workload.deploymentPolicy);
        const list = holders.get(key) ?? [];
        list.push(scopedKey(org, node));
        holders.set(key, list);
      }
    }
    // Everything is new: no need to track what changed.
    for (const policy of input.policies) {
      const state = this.addPolicy(policy);
      this.place(state, holders.get(state.key) ?? [], undefined);
    }
    return this.snapshot();
  }

  /** A node was added or changed: answers the nodes whose desired workloads changed. */
  upsertNode(node: PlacementNode): NodeWorkloads[] {
    const prepared = prepareNode(node, this.clock());
    this.addNode(prepared);
    const tracker = this.tracker();
    tracker.touch(prepared.key, node.org, node.id);
    for (const state of this.policiesOf(node.org)) {
      const version = state.matcher.match(prepared);
      if (version === undefined) state.candidates.delete(prepared.key);
      else state.candidates.set(prepared.key, version);

      if (state.policy.placement.mode === 'all') {
        this.assign(state, prepared.key, version, tracker);
      } else if (state.assigned.has(prepared.key)) {
        this.assign(state, prepared.key, version, tracker);
        if (version === undefined) this.refill(state, tracker);
      } else if (version !== undefined && state.assigned.size < replicasOf(state.policy)) {
        this.refill(state, tracker);
      }
    }
    return tracker.changed();
  }

  /** A node was deleted: answers the other nodes whose desired workloads changed. */
  removeNode(org: string, id: string): NodeWorkloads[] {
    const key = scopedKey(org, id);
    if (!this.nodes.has(key)) return [];
    const tracker = this.tracker();
    for (const state of this.policiesOf(org)) {
      state.candidates.delete(key);
      if (!state.assigned.has(key)) continue;
      this.assign(state, key, undefined, tracker);
      if (state.policy.placement.mode === 'replicas') this.refill(state, tracker);
    }
    tracker.forget(key);
    this.nodes.delete(key);
    this.nodesByOrg.get(org)?.delete(key);
    this.windowed.delete(key);
    this.perNode.delete(key);
    return tracker.changed();
  }

  /** A deployment policy was created or changed: replicas that may stay, stay. */
  upsertPolicy(policy: PlacementPolicy): NodeWorkloads[] {
    const tracker = this.tracker();
    const existing = this.policies.get(scopedKey(policy.org, policy.name));
    const holders = existing ? [...existing.assigned.keys()] : [];
    if (existing && !sameService(existing.policy, policy)) {
      // Another service: every workload changes, though replicas stay on their nodes.
      for (const key of holders) this.assign(existing, key, undefined, tracker);
    }
    const state = this.addPolicy(policy);
    this.place(state, holders, tracker);
    this.refillGroupMates(state.key, tracker);
    return tracker.changed();
  }

  removePolicy(org: string, name: string): NodeWorkloads[] {
    const key = scopedKey(org, name);
    const state = this.policies.get(key);
    if (!state) return [];
    const tracker = this.tracker();
    for (const nodeKey of [...state.assigned.keys()]) this.assign(state, nodeKey, undefined, tracker);
    this.policies.delete(key);
    this.policiesByOrg.get(org)?.delete(key);
    this.refillGroupMates(key, tracker);
    return tracker.changed();
  }

  /** The exchange's services changed (a version added or removed): versions are chosen again. */
  setServices(services: Iterable<PlacementService>): NodeWorkloads[] {
    this.catalog = new ServiceCatalog(services);
    const tracker = this.tracker();
    for (const state of this.policies.values()) {
      state.matcher = new DeploymentMatcher(state.policy, this.catalog);
      this.place(state, [...state.assigned.keys()], tracker);
    }
    return tracker.changed();
  }

  /**
   * The instance groups changed: the replicas policies they name (before or now) are placed
   * again, replicas that may stay staying; answers the nodes whose workloads changed.
   */
  setInstanceGroups(rules: readonly InstanceGroupRule[]): NodeWorkloads[] {
    if (JSON.stringify(rules) === this.groupsKey) return [];
    const named = new Set(this.groupsOf.keys());
    this.indexGroups(rules);
    for (const key of this.groupsOf.keys()) named.add(key);
    const tracker = this.tracker();
    for (const key of named) {
      const state = this.policies.get(key);
      if (state?.policy.placement.mode === 'replicas') this.place(state, [...state.assigned.keys()], tracker);
    }
    return tracker.changed();
  }

  /** Maintenance windows open and close with time: re-checks nodes whose availability changed. */
  refreshAvailability(): NodeWorkloads[] {
    const now = this.clock();
    const changed = new Map<string, NodeWorkloads>();
    for (const key of [...this.windowed]) {
      const prepared = this.nodes.get(key)!;
      if (acceptsWorkloads(prepared.node, now) !== prepared.available) {
        for (const entry of this.upsertNode(prepared.node))
          changed.set(scopedKey(entry.org, entry.node), entry);
      }
    }
    return [...changed.values()];
  }

  workloadsOf(org: string, id: string): DesiredWorkload[] {
    return this.workloadsByKey(scopedKey(org, id));
  }

  placementOf(org: string, name: string): PolicyPlacement | undefined {
    const state = this.policies.get(scopedKey(org, name));
    if (!state) return undefined;
    const prefix = org.length + 1;
    const nodes = [...state.assigned]
      .map(([key, version]) => ({ node: key.slice(prefix), version }))
      .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
    const wanted = state.policy.placement.mode === 'all' ? nodes.length : replicasOf(state.policy);
    return {
      org,
      name,
      nodes,
      candidates: state.candidates.size,
      shortfall: Math.max(0, wanted - nodes.length),
    };
  }

  /** Desired workloads of every known node, sorted by org and id. */
  snapshot(): NodeWorkloads[] {
    return [...this.nodes.values()]
      .map(({ key, node }) => ({ org: node.org, node: node.id, workloads: this.workloadsByKey(key) }))
      .sort((a, b) => compare(a.org, b.org) || compare(a.node, b.node));
  }

  private indexGroups(rules: readonly InstanceGroupRule[]): void {
    this.groupsKey = JSON.stringify(rules);
    this.groupsOf.clear();
    for (const rule of rules) {
      const limit: GroupLimit = { policies: new Set(rule.policies), perHost: rule.perHost };
      for (const name of rule.policies) {
        const key = scopedKey(rule.org, name);
        this.groupsOf.set(key, [...(this.groupsOf.get(key) ?? []), limit]);
      }
    }
  }

  /**
   * A policy of an instance group moved or went: the other replicas policies of its groups that
   * lack replicas may now fit where it was.
   */
  private refillGroupMates(key: string, tracker: AssignmentTracker): void {
    const [org] = splitKey(key);
    for (const group of this.groupsOf.get(key) ?? [])
      for (const name of group.policies) {
        const mate = this.policies.get(scopedKey(org, name));
        if (
          mate &&
          mate.key !== key &&
          mate.policy.placement.mode === 'replicas' &&
          mate.assigned.size < replicasOf(mate.policy)
        )
          this.refill(mate, tracker);
      }
  }

  /** Whether node `key` may take a new replica of the policy without passing a group's limit. */
  private fitsGroups(groups: readonly GroupLimit[], name: string, key: string): boolean {
    const here = this.perNode.get(key);
    if (!here) return true;
    return groups.every((group) => {
      let held = 0;
      for (const other of group.policies) if (other !== name && here.has(other)) held++;
      return held < group.perHost;
    });
  }

  private addNode(prepared: PreparedNode): void {
    this.nodes.set(prepared.key, prepared);
    if (prepared.node.maintenance) this.windowed.add(prepared.key);
    else this.windowed.delete(prepared.key);
    let nodes = this.nodesByOrg.get(prepared.node.org);
    if (!nodes) this.nodesByOrg.set(prepared.node.org, (nodes = new Map()));
    nodes.set(prepared.key, prepared);
  }

  private addPolicy(policy: PlacementPolicy): PolicyState {
    const key = scopedKey(policy.org, policy.name);
    const existing = this.policies.get(key);
    const state: PolicyState = existing ?? {
      key,
      seed: fnv1a(key),
      policy,
      matcher: new DeploymentMatcher(policy, this.catalog),
      candidates: new Map(),
      assigned: new Map(),
      workloads: new Map(),
    };
    state.policy = policy;
    state.workloads.clear();
    state.matcher = new DeploymentMatcher(policy, this.catalog);
    this.policies.set(key, state);
    let keys = this.policiesByOrg.get(policy.org);
    if (!keys) this.policiesByOrg.set(policy.org, (keys = new Set()));
    keys.add(key);
    return state;
  }

  private *policiesOf(org: string): Iterable<PolicyState> {
    for (const key of this.policiesByOrg.get(org) ?? []) {
      const state = this.policies.get(key);
      if (state) yield state;
    }
  }

  /** Recomputes a policy's candidates and placement; `holders` keep their replica when they may. */
  private place(state: PolicyState, holders: Iterable<string>, tracker: AssignmentTracker | undefined): void {
    state.candidates.clear();
    for (const prepared of this.nodesByOrg.get(state.policy.org)?.values() ?? []) {
      const version = state.matcher.match(prepared);
      if (version !== undefined) state.candidates.set(prepared.key, version);
    }
    const target = state.policy.placement.mode === 'all' ? state.candidates : this.spread(state, holders);
    for (const key of [...state.assigned.keys()]) {
      if (!target.has(key)) this.assign(state, key, undefined, tracker);
    }
    for (const key of target.keys()) this.assign(state, key, state.candidates.get(key), tracker);
  }

  /** Tops a replicas policy up to its count, keeping its current holders. */
  private refill(state: PolicyState, tracker: AssignmentTracker): void {
    for (const key of this.spread(state, state.assigned.keys()).keys()) {
      if (!state.assigned.has(key)) this.assign(state, key, state.candidates.get(key), tracker);
    }
  }

  private spread(state: PolicyState, holders: Iterable<string>): Set<string> {
    const groups = this.groupsOf.get(state.key);
    return spreadReplicas({
      seed: state.seed,
      replicas: replicasOf(state.policy),
      candidates: state.candidates,
      holders,
      nodeOf: (key) => this.nodes.get(key) as PreparedNode,
      ...(groups && { fits: (key: string) => this.fitsGroups(groups, state.policy.name, key) }),
    });
  }

  /** Sets (or, with no version, removes) one node's workload of one policy. */
  private assign(
    state: PolicyState,
    key: string,
    version: string | undefined,
    tracker: AssignmentTracker | undefined,
  ): void {
    if (state.assigned.get(key) === version) return;
    const prepared = this.nodes.get(key);
    if (!prepared) return;
    tracker?.touch(key, prepared.node.org, prepared.node.id);
    let workloads = this.perNode.get(key);
    if (version === undefined) {
      state.assigned.delete(key);
      workloads?.delete(state.policy.name);
      return;
    }
    state.assigned.set(key, version);
    if (!workloads) this.perNode.set(key, (workloads = new Map()));
    let workload = state.workloads.get(version);
    if (!workload) {
      const { service } = state.policy;
      workload = {
        deploymentPolicy: state.policy.name,
        service: { org: service.org, url: service.url, version },
      };
      state.workloads.set(version, workload);
    }
    workloads.set(state.policy.name, workload);
  }

  private workloadsByKey(key: string): DesiredWorkload[] {
    const workloads = this.perNode.get(key);
    if (!workloads) return [];
    return [...workloads.values()].sort((a, b) => compare(a.deploymentPolicy, b.deploymentPolicy));
  }

  private tracker(): AssignmentTracker {
    return new AssignmentTracker((key) => this.workloadsByKey(key));
  }
}

function sameService(a: PlacementPolicy, b: PlacementPolicy): boolean {
  return a.service.org === b.service.org && a.service.url === b.service.url;
}

function replicasOf(policy: PlacementPolicy): number {
  return Math.max(0, policy.placement.replicas ?? 0);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
