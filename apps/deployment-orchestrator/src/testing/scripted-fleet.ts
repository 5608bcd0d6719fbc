/**
 * An exchange for driver tests, with no HTTP: it keeps the policies asked for, answers each
 * policy's statuses as the test sets them, logs every call in order and fails the calls a test
 * says it must (once each), as an exchange that is down would. Its nodes are those whose running
 * version the test sets, and it has every agent package.
 */
import {
  FleetGateway,
  type FleetNode,
  type NodePolicy,
  PolicyRefused,
  type PolicyStatus,
} from '../fleet/fleet-gateway';
import { exchangeUnavailable } from '../orchestrator.errors';

export type FleetCall = 'ensure' | 'remove' | 'pause' | 'resume' | 'statuses' | 'node';

export class ScriptedFleet extends FleetGateway {
  /** Each call as `<call> <policy or node>`, in the order made. */
  readonly calls: string[] = [];
  readonly policies = new Map<string, NodePolicy & { paused: boolean }>();
  /** The statuses each policy answers (none until set). */
  readonly statusesOf = new Map<string, PolicyStatus[]>();
  /** The version each node reports running. */
  readonly running = new Map<string, string>();
  /** The next call of each kind fails as an exchange that cannot be reached. */
  readonly failNext = new Set<FleetCall>();
  /** Policies the exchange refuses for good, with why. */
  readonly refusing = new Map<string, string>();

  constructor() {
    super(undefined);
  }

  override async ensurePolicy(_org: string, policy: NodePolicy): Promise<void> {
    this.call('ensure', policy.name);
    const refusal = this.refusing.get(policy.name);
    if (refusal !== undefined) throw new PolicyRefused(refusal);
    if (!this.policies.has(policy.name)) this.policies.set(policy.name, { ...policy, paused: false });
  }

  override async removePolicy(_org: string, name: string): Promise<void> {
    this.call('remove', name);
    this.policies.delete(name);
  }

  override async setPaused(_org: string, name: string, paused: boolean): Promise<void> {
    this.call(paused ? 'pause' : 'resume', name);
    const policy = this.policies.get(name);
    if (policy) policy.paused = paused;
  }

  override async statuses(_org: string, name: string): Promise<PolicyStatus[] | undefined> {
    this.call('statuses', name);
    return this.policies.has(name) ? (this.statusesOf.get(name) ?? []) : undefined;
  }

  override async node(_org: string, id: string): Promise<FleetNode | undefined> {
    this.call('node', id);
    return fleetNode(id, this.running.get(id) ?? null);
  }

  override async nodes(): Promise<FleetNode[]> {
    return [...this.running].map(([id, version]) => fleetNode(id, version));
  }

  override async packageExists(): Promise<boolean> {
    return true;
  }

  override async upgradingPolicies(): Promise<Map<string, string[]>> {
    return new Map();
  }

  /** The calls made that change something at the exchange, without the reads. */
  changes(): string[] {
    return this.calls.filter((call) => !call.startsWith('statuses ') && !call.startsWith('node '));
  }

  private call(kind: FleetCall, subject: string): void {
    this.calls.push(`${kind} ${subject}`);
    if (this.failNext.delete(kind))
      throw exchangeUnavailable(`the exchange did not answer the ${kind} of ${subject}`);
  }
}

function fleetNode(id: string, agentVersion: string | null): FleetNode {
  return {
    id,
    tags: [],
    labels: {},
    rack: null,
    haGroup: null,
    maintenance: null,
    lastHeartbeat: null,
    agentVersion,
  };
}
