/**
 * What placement reads and what it answers. Shapes follow what the exchange publishes (and the
 * agbot mirrors), so the mirror's rows are passed as they are; extra fields are ignored.
 */
import { type MirroredNode } from '../mirror/mirrored-node';

/** A property as the exchange stores it; values that do not fit their type are ignored by matching. */
export interface PolicyProperty {
  readonly name: string;
  readonly value: unknown;
  readonly type?: string;
}

export type PlacementNode = Pick<
  MirroredNode,
  'org' | 'id' | 'policy' | 'rack' | 'haGroup' | 'schedulable' | 'maintenance'
>;

export interface PlacementSpec {
  readonly mode: 'all' | 'replicas';
  /** Required with `replicas`. */
  readonly replicas?: number;
}

/** A deployment policy as the exchange answers it (DeploymentPolicyResponse). */
export interface PlacementPolicy {
  readonly org: string;
  readonly name: string;
  readonly service: { readonly org: string; readonly url: string; readonly versionRange: string };
  readonly properties?: readonly PolicyProperty[];
  readonly constraints?: readonly string[];
  readonly placement: PlacementSpec;
}

/**
 * A service version for one arch (ServiceResponse). The exchange has no service policy today;
 * when `properties`/`constraints` are present they are ANDed with the deployment policy's.
 */
export interface PlacementService {
  readonly org: string;
  readonly url: string;
  readonly version: string;
  readonly arch: string;
  readonly properties?: readonly PolicyProperty[];
  readonly constraints?: readonly string[];
}

/** One workload the agbot wants a node to run (the exchange's DesiredWorkload). */
export interface DesiredWorkload {
  readonly deploymentPolicy: string;
  readonly service: { readonly org: string; readonly url: string; readonly version: string };
}

/** The desired workloads of one node. */
export interface NodeWorkloads {
  readonly org: string;
  readonly node: string;
  readonly workloads: readonly DesiredWorkload[];
}

/**
 * What a round recorded of one node: its workloads, placed while the node was `schedulable` or
 * not. A node with no record was never placed while cordoned: it counts as schedulable.
 */
export interface PlacedWorkloads extends NodeWorkloads {
  readonly schedulable: boolean;
}

export interface PlacementInput {
  readonly nodes: Iterable<PlacementNode>;
  readonly policies: Iterable<PlacementPolicy>;
  readonly services: Iterable<PlacementService>;
  /** What nodes hold now (the exchange's desired workloads); replicas stay where they are when they may. */
  readonly current?: Iterable<NodeWorkloads>;
  /** Instance groups limiting how many of their instances one node holds. */
  readonly instanceGroups?: readonly InstanceGroupRule[];
}

/** At most `perHost` replicas of the deployment policies `policies` (of `org`) on one node. */
export interface InstanceGroupRule {
  readonly org: string;
  readonly id: string;
  readonly policies: readonly string[];
  readonly perHost: number;
}

/** Where one deployment policy landed. */
export interface PolicyPlacement {
  readonly org: string;
  readonly name: string;
  /** Node ids (of the policy's org) with the version each should run, sorted by id. */
  readonly nodes: readonly { readonly node: string; readonly version: string }[];
  /** Compatible, schedulable nodes not under maintenance. */
  readonly candidates: number;
  /** Replicas asked for but not placed for want of candidates (0 for mode `all`). */
  readonly shortfall: number;
}

/** `org/id`: how nodes and policies are keyed across orgs. */
export function scopedKey(org: string, id: string): string {
  return `${org}/${id}`;
}

/** The `[org, id]` a scopedKey was made of (ids never hold a slash; orgs neither). */
export function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
