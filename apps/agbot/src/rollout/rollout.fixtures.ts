/**
 * A fake fleet for rollout specs that behaves like agents do: a node picks up a new desired
 * version when it next talks to the exchange (never while offline), stops the old version at
 * once, starts the new one after a few ticks and reports it `running`, or `failed` when that
 * version is broken on it. Offline means its heartbeat is stale; what it really runs carries on.
 */
import { type RolloutMember, type VersionChange } from './rollout.types';

export interface FakeNodeSpec {
  readonly id: string;
  readonly haGroup?: string | null;
  readonly version?: string;
  readonly online?: boolean;
  /** Versions that never come up on this node. */
  readonly broken?: readonly string[];
}

interface FakeNode {
  readonly id: string;
  haGroup: string | null;
  /** What the exchange asks of the node. */
  desired: string | null;
  /** What the node really runs, whatever it reported. */
  running: { version: string; state: 'running' | 'starting' | 'failed' } | null;
  /** What the exchange last heard from it. */
  reported: { version: string; state: string } | null;
  online: boolean;
  startsIn: number;
  readonly broken: ReadonlySet<string>;
}

export class FakeFleet {
  private readonly nodes = new Map<string, FakeNode>();
  /** Every version change the exchange took, per node, in order. */
  readonly history = new Map<string, string[]>();

  constructor(
    specs: readonly FakeNodeSpec[],
    private readonly startTicks = 2,
  ) {
    for (const spec of specs) {
      const version = spec.version ?? '1.0.0';
      const running = { version, state: 'running' as const };
      this.nodes.set(spec.id, {
        id: spec.id,
        haGroup: spec.haGroup ?? null,
        desired: version,
        running,
        reported: { ...running },
        online: spec.online ?? true,
        startsIn: 0,
        broken: new Set(spec.broken ?? []),
      });
      this.history.set(spec.id, []);
    }
  }

  /** The exchange takes the agbot's changes; online nodes act on them at once. */
  apply(changes: readonly VersionChange[]): void {
    for (const change of changes) {
      const node = this.node(change.node);
      if (node.desired === change.version) continue;
      node.desired = change.version;
      (this.history.get(node.id) as string[]).push(change.version);
      if (node.online) this.pickUp(node);
    }
  }

  /** Time passes: starting workloads come up (or fail) and online nodes report. */
  tick(): void {
    for (const node of this.nodes.values()) {
      if (node.running?.state === 'starting') {
        node.startsIn--;
        if (node.startsIn <= 0) {
          node.running = {
            version: node.running.version,
            state: node.broken.has(node.running.version) ? 'failed' : 'running',
          };
        }
      }
      if (node.online) node.reported = node.running ? { ...node.running } : null;
    }
  }

  setOnline(id: string, online: boolean): void {
    const node = this.node(id);
    node.online = online;
    if (online) {
      this.pickUp(node);
      node.reported = node.running ? { ...node.running } : null;
    }
  }

  members(target: string, ids?: readonly string[]): RolloutMember[] {
    return [...this.nodes.values()]
      .filter((node) => !ids || ids.includes(node.id))
      .map((node) => ({
        node: node.id,
        haGroup: node.haGroup,
        desiredVersion: node.desired,
        targetVersion: target,
        actual: node.reported,
        online: node.online,
      }));
  }

  /** Members of `group` (among `ids`, when given) really running the service now. */
  servingIn(group: string, ids?: readonly string[]): string[] {
    return [...this.nodes.values()]
      .filter((node) => node.haGroup === group && (!ids || ids.includes(node.id)))
      .filter((node) => node.running?.state === 'running')
      .map((node) => node.id);
  }

  /** Nodes that changed version and do not run it yet. */
  moving(ids?: readonly string[]): string[] {
    return [...this.nodes.values()]
      .filter((node) => !ids || ids.includes(node.id))
      .filter((node) => node.running?.version !== node.desired || node.running?.state !== 'running')
      .map((node) => node.id);
  }

  groupOf(id: string): string | null {
    return this.node(id).haGroup;
  }

  runningVersion(id: string): string | undefined {
    const running = this.node(id).running;
    return running?.state === 'running' ? running.version : undefined;
  }

  desiredVersion(id: string): string | null {
    return this.node(id).desired;
  }

  private pickUp(node: FakeNode): void {
    if (node.desired === null || node.running?.version === node.desired) return;
    node.running = { version: node.desired, state: 'starting' };
    node.startsIn = this.startTicks;
  }

  private node(id: string): FakeNode {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`no node ${id} in the fake fleet`);
    return node;
  }
}
