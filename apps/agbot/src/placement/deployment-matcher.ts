/**
 * One deployment policy compiled for matching: per node arch, the service version its range
 * selects and the deployment policy's properties and constraints ANDed with that service's,
 * compiled once. Answers which version a node should run (fast) or why it cannot (explain).
 */
import { compatible, compilePolicy, type CompiledPolicy, isCompatible, type Property } from '@careen/policy';
import { unavailabilityReason } from './node-availability';
import { type PreparedNode } from './placement-node';
import { type PlacementPolicy, type PlacementService } from './placement.types';
import { type ServiceCatalog } from './service-catalog';

interface Variant {
  readonly service: PlacementService;
  readonly policy: CompiledPolicy;
}

export interface MatchExplanation {
  /** The version the node would run were it available; undefined when it is not compatible. */
  readonly version?: string;
  /** Why it takes no workloads now (cordoned, under maintenance), whether compatible or not. */
  readonly unavailable?: string;
  /** Why the node cannot run it now, `unavailable` included; empty when it can. */
  readonly reasons: readonly string[];
}

export class DeploymentMatcher {
  /** Per arch ('' for nodes stating none): the variant, or null when no version fits. */
  private readonly variants = new Map<string, Variant | null>();

  constructor(
    readonly policy: PlacementPolicy,
    private readonly catalog: ServiceCatalog,
    /** Pins a version instead of the newest in range (deploycheck of a given version). */
    private readonly pinnedVersion?: string,
  ) {}

  /** The version the node should run, or undefined when it may not run this policy. */
  match(node: PreparedNode): string | undefined {
    if (!node.available || node.node.org !== this.policy.org) return undefined;
    const variant = this.variantFor(node.arch);
    return variant && isCompatible(node.policy, variant.policy) ? variant.service.version : undefined;
  }

  /** The verdict of `match` at `now`, split into compatibility and availability, with reasons. */
  explain(node: PreparedNode, now: Date): MatchExplanation {
    const unavailable = unavailabilityReason(node.node, now);
    const reasons: string[] = unavailable ? [unavailable] : [];
    const incompatible: string[] = [];
    if (node.node.org !== this.policy.org) incompatible.push(`node is not in org ${this.policy.org}`);
    const variant = this.variantFor(node.arch);
    if (variant) {
      incompatible.push(
        ...compatible(node.policy, variant.policy).failures.map((failure) => failure.message),
      );
    } else {
      incompatible.push(this.noVersionReason(node.arch));
    }
    reasons.push(...incompatible);
    return {
      ...(incompatible.length === 0 && variant ? { version: variant.service.version } : {}),
      ...(unavailable ? { unavailable } : {}),
      reasons,
    };
  }

  private variantFor(arch: string | undefined): Variant | null {
    const key = arch ?? '';
    let variant = this.variants.get(key);
    if (variant === undefined) {
      variant = this.buildVariant(arch);
      this.variants.set(key, variant);
    }
    return variant;
  }

  private buildVariant(arch: string | undefined): Variant | null {
    const { service: wanted } = this.policy;
    const service =
      this.pinnedVersion === undefined
        ? this.catalog.newestInRange(wanted.org, wanted.url, wanted.versionRange, arch)
        : this.catalog.exact(wanted.org, wanted.url, this.pinnedVersion, arch);
    if (!service) return null;
    return {
      service,
      policy: compilePolicy({
        name: `deployment policy ${this.policy.org}/${this.policy.name}`,
        properties: [...(this.policy.properties ?? []), ...(service.properties ?? [])] as Property[],
        constraints: [...(this.policy.constraints ?? []), ...(service.constraints ?? [])],
      }),
    };
  }

  private noVersionReason(arch: string | undefined): string {
    const { service } = this.policy;
    const name = `${service.org}/${service.url}`;
    const forArch = arch === undefined ? '' : ` for arch ${arch}`;
    if (!this.catalog.has(service.org, service.url)) return `service ${name} does not exist`;
    return this.pinnedVersion === undefined
      ? `no version of service ${name} in range "${service.versionRange}"${forArch}`
      : `service ${name} has no version ${this.pinnedVersion}${forArch}`;
  }
}
