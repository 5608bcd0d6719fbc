/**
 * A fleet of nodes for service-placement tests that behaves towards the exchange like agents
 * do: each node polls its desired workloads, starts what it is given (stopping the version it
 * replaces), reports what actually runs, and heartbeats through its status. A node can be told
 * that a version never comes up, or go offline (no polls, no reports).
 */
import { bearer, http, type Credentials } from '@careen/testing';

export interface FleetNodeSpec {
  id: string;
  rack?: string;
  properties?: { name: string; value: unknown }[];
  constraints?: string[];
}

export interface RunningWorkload {
  deploymentPolicy: string;
  service: { org: string; url: string; version: string };
  state: 'starting' | 'running' | 'failed';
  since: number;
}

interface DesiredWorkload {
  deploymentPolicy: string;
  service: { org: string; url: string; version: string };
}

interface FleetNode {
  spec: FleetNodeSpec;
  token: string;
  auth?: Credentials;
  workloads: RunningWorkload[];
  failing: Set<string>;
  offline: boolean;
  lastReport: number;
  /** Every workload this node was asked to start, in order (an upgrade asked twice shows twice). */
  asked: DesiredWorkload[];
}

export interface FleetOptions {
  /** How long a workload takes to come up. */
  startMs?: number;
  pollMs?: number;
  /** Status reports double as heartbeats; at least this often. */
  heartbeatMs?: number;
}

export class ServiceFleet {
  private readonly nodes = new Map<string, FleetNode>();
  private readonly watchers = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  private constructor(
    private readonly exchangeUrl: string,
    private readonly org: string,
    private readonly options: Required<FleetOptions>,
  ) {}

  static async register(
    exchangeUrl: string,
    org: string,
    admin: Credentials,
    specs: FleetNodeSpec[],
    options: FleetOptions = {},
  ): Promise<ServiceFleet> {
    const fleet = new ServiceFleet(exchangeUrl, org, {
      startMs: options.startMs ?? 150,
      pollMs: options.pollMs ?? 50,
      heartbeatMs: options.heartbeatMs ?? 1_000,
    });
    for (const spec of specs) {
      const token = `${spec.id}-token-0123456789`;
      const registered = await http(exchangeUrl, 'PUT', `/v1/orgs/${org}/nodes/${spec.id}`, {
        auth: admin,
        body: {
          token,
          ...(spec.rack ? { rack: spec.rack } : {}),
          policy: { properties: spec.properties ?? [], constraints: spec.constraints ?? [] },
        },
      });
      if (registered.status >= 300)
        throw new Error(`registering ${spec.id}: ${JSON.stringify(registered.body)}`);
      fleet.nodes.set(spec.id, {
        spec,
        token,
        workloads: [],
        failing: new Set(),
        offline: false,
        lastReport: 0,
        asked: [],
      });
    }
    return fleet;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.pollMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.ticking) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** The node never gets this version of any service running: it reports `failed`. */
  failVersion(id: string, version: string): void {
    this.node(id).failing.add(version);
  }

  setOffline(id: string, offline: boolean): void {
    this.node(id).offline = offline;
  }

  /**
   * Calls `watcher` each time a node's workloads change (one started, came up, failed or
   * stopped), right after the change: a check of the whole fleet there sees every state it
   * passes through. Answers a function that stops the calls.
   */
  watch(watcher: () => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  running(id: string): RunningWorkload[] {
    return this.node(id).workloads.filter((workload) => workload.state === 'running');
  }

  /** Versions of a deployment policy the node was asked to run, in the order it was asked. */
  asked(id: string, deploymentPolicy: string): string[] {
    return this.node(id)
      .asked.filter((workload) => workload.deploymentPolicy === deploymentPolicy)
      .map((workload) => workload.service.version);
  }

  private node(id: string): FleetNode {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`no fleet node ${id}`);
    return node;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await Promise.all(
        [...this.nodes.values()].filter((node) => !node.offline).map((node) => this.step(node)),
      );
    } catch {
      // the exchange may be going away at the end of a test; the next tick tries again
    } finally {
      this.ticking = false;
    }
  }

  private async step(node: FleetNode): Promise<void> {
    node.auth ??= bearer(
      (
        await http(this.exchangeUrl, 'POST', '/v1/auth/token', {
          body: { org: this.org, node: node.spec.id, token: node.token },
        })
      ).body.accessToken,
    );
    const desired = await http<{ items: DesiredWorkload[] }>(
      this.exchangeUrl,
      'GET',
      `/v1/orgs/${this.org}/nodes/${node.spec.id}/workloads`,
      { auth: node.auth },
    );
    if (desired.status !== 200) return;
    const now = Date.now();
    let changed = this.reconcile(node, desired.body.items, now);
    if (changed) this.changed();
    for (const workload of node.workloads) {
      if (workload.state === 'starting' && now - workload.since >= this.options.startMs) {
        workload.state = node.failing.has(workload.service.version) ? 'failed' : 'running';
        workload.since = now;
        changed = true;
        this.changed();
      }
    }
    if (changed || now - node.lastReport >= this.options.heartbeatMs) await this.report(node, now);
  }

  private changed(): void {
    for (const watcher of this.watchers) watcher();
  }

  /** Starts what is new or changed, stops what is no longer wanted; true when anything moved. */
  private reconcile(node: FleetNode, desired: DesiredWorkload[], now: number): boolean {
    const key = (workload: DesiredWorkload) => `${workload.deploymentPolicy}|${workload.service.version}`;
    const wanted = new Set(desired.map(key));
    const have = new Set(node.workloads.map(key));
    const kept = node.workloads.filter((workload) => wanted.has(key(workload)));
    const started = desired
      .filter((workload) => !have.has(key(workload)))
      .map((workload): RunningWorkload => ({ ...workload, state: 'starting', since: now }));
    for (const workload of started)
      node.asked.push({ deploymentPolicy: workload.deploymentPolicy, service: workload.service });
    const changed = started.length > 0 || kept.length !== node.workloads.length;
    node.workloads = [...kept, ...started];
    return changed;
  }

  private async report(node: FleetNode, now: number): Promise<void> {
    const answer = await http(this.exchangeUrl, 'PUT', `/v1/orgs/${this.org}/nodes/${node.spec.id}/status`, {
      auth: node.auth,
      body: {
        workloads: node.workloads.map((workload) => ({
          deploymentPolicy: workload.deploymentPolicy,
          service: workload.service,
          state: workload.state,
        })),
      },
    });
    if (answer.status < 300) node.lastReport = now;
  }
}
