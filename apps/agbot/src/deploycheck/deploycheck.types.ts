/** What a deploy check is asked and what it answers (the body and answer of POST .../deploycheck). */
import {
  type PlacementNode,
  type PlacementPolicy,
  type PlacementService,
} from '../placement/placement.types';

export interface DeployCheckRequest {
  readonly org: string;
  /** Name of a deployment policy of the org; exactly one of this and `service`. */
  readonly deploymentPolicy?: string;
  /** A service of the org, at a given version or (without one) its newest. */
  readonly service?: { readonly org: string; readonly url: string; readonly version?: string };
  /** Also judge each HA group touched: would it keep running the service, and through an upgrade? */
  readonly checkHA: boolean;
  /** Check the members of this HA group only. */
  readonly haGroup?: string;
  /** Check this node only (with `checkHA`, and its group's members). */
  readonly node?: string;
}

/** What the check reads: the agbot's mirror of the exchange. */
export interface DeployCheckSources {
  readonly nodes: Iterable<PlacementNode>;
  readonly policies: Iterable<PlacementPolicy>;
  readonly services: Iterable<PlacementService>;
}

export interface NodeVerdict {
  readonly node: string;
  readonly haGroup: string | null;
  /** Policies compatible both ways and a service version exists for its arch: meant to run it. */
  readonly compatible: boolean;
  /** Compatible and accepting workloads now (not cordoned, not under maintenance). */
  readonly deployable: boolean;
  /** The version it would run, when compatible. */
  readonly version: string | null;
  /** Why it is not deployable; empty when it is. */
  readonly reasons: readonly string[];
}

export interface GroupVerdict {
  readonly haGroup: string;
  readonly members: readonly string[];
  /** Members meant to run the service; the others are not counted (heterogeneous groups). */
  readonly compatibleMembers: readonly string[];
  readonly deployableMembers: readonly string[];
  /** At least one member would run the service. */
  readonly available: boolean;
  /** At least two would, so an upgrade can roll through the group without stopping the service. */
  readonly staysAvailableDuringUpgrade: boolean;
  readonly reason: string;
}

export interface DeployCheckResult {
  readonly org: string;
  readonly deploymentPolicy: string | null;
  readonly service: { readonly org: string; readonly url: string; readonly version: string | null };
  /** Every node checked can run it (and, with checkHA, every group checked stays available). */
  readonly compatible: boolean;
  readonly summary: { readonly nodes: number; readonly compatible: number; readonly deployable: number };
  readonly nodes: readonly NodeVerdict[];
  /** Present with checkHA, or when a group was named. */
  readonly haGroups?: readonly GroupVerdict[];
}
