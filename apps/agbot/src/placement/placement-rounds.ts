/**
 * The placement loop's memory between rounds, and one round: the engine, the mirrored nodes,
 * what was published to each node and each rollout's state. A round plans every active
 * deployment policy through the rollout planner and derives the workloads each affected node
 * should have now. Plain code: the controller reads the mirror and writes what a round answers.
 */
import { type ExchangeMirror } from '../mirror/exchange-mirror';
import { type MirroredNode } from '../mirror/mirrored-node';
import { memberFromNode } from '../rollout/member-facts';
import { RolloutPlanner } from '../rollout/rollout-planner';
import { type RolloutMember, type RolloutPlan, type RolloutState } from '../rollout/rollout.types';
import { type PlacementEngine } from './placement-engine';
import {
  type DesiredWorkload,
  type InstanceGroupRule,
  type NodeWorkloads,
  type PlacedWorkloads,
  type PlacementPolicy,
  type PlacementService,
  type PolicyPlacement,
  scopedKey,
  splitKey,
} from './placement.types';

/** Changes taken in since the last round, by org-scoped key. */
export interface PendingChanges {
  nodes: Set<string>;
  policies: Set<string>;
  services: boolean;
  /** A declared instance group changed. */
  groups: boolean;
}

/** What the rollouts route shows of a rollout under way. */
export type RolloutReport = Pick<RolloutPlan, 'groups' | 'ungrouped'>;

export interface RoundSettings {
  now: Date;
  parallelism: number;
  memberDeadlineMs: number;
  heartbeatTimeoutMs: number;
}

export interface Round {
  changed: PlacedWorkloads[];
  /** Per policy key: the rollout to keep, or undefined when it is over. */
  rollouts: Map<string, { state: RolloutState; report: RolloutReport } | undefined>;
  events: RolloutPlan['events'];
  stillActive: Set<string>;
}

/** The loop's memory between rounds: the engine, the mirrored nodes, what was published, rollout states. */
export class PlacementRounds {
  private readonly planner = new RolloutPlanner();
  /**
   * Nodes cordoned or uncordoned since their record was written: the next round writes it again
   * even when their workloads stay the same, so that the record says which state it was placed
   * in (a maintenance session waits for a placement made after its host's uncordon).
   */
  private readonly restamped = new Set<string>();

  constructor(
    private readonly engine: PlacementEngine,
    private readonly nodes: Map<string, MirroredNode>,
    private readonly published: Map<string, PlacedWorkloads>,
    private readonly states: Map<string, RolloutState>,
    /** The instance groups' placement limits as declared now. */
    private readonly instanceGroups: () => Promise<InstanceGroupRule[]> = async () => [],
  ) {
    for (const [key, node] of nodes) this.noteSchedulable(key, node);
  }

  /** Feeds pending changes to the engine; answers the policies whose placement moved. */
  async absorb(pending: PendingChanges, mirror: ExchangeMirror): Promise<Set<string>> {
    const moved: NodeWorkloads[] = [];
    if (pending.services)
      moved.push(...this.engine.setServices(await mirror.allResources<PlacementService>('service')));
    // A group's members are its project's policies: a policy's change may change them too.
    if (pending.groups || pending.policies.size > 0)
      moved.push(...this.engine.setInstanceGroups(await this.instanceGroups()));
    for (const key of pending.policies) {
      const [org, name] = splitKey(key);
      const policy = await mirror.findResource<PlacementPolicy>(org, 'deploymentPolicy', name);
      moved.push(...(policy ? this.engine.upsertPolicy(policy) : this.engine.removePolicy(org, name)));
    }
    const found = new Map(
      (await mirror.findNodes([...pending.nodes].map(splitKey))).map((node) => [
        scopedKey(node.org, node.id),
        node,
      ]),
    );
    for (const key of pending.nodes) {
      const node = found.get(key);
      if (node) {
        this.nodes.set(key, node);
        this.noteSchedulable(key, node);
        moved.push(...this.engine.upsertNode(node));
      } else {
        const [org, id] = splitKey(key);
        this.nodes.delete(key);
        moved.push(...this.engine.removeNode(org, id));
      }
    }
    moved.push(...this.engine.refreshAvailability());
    const policies = new Set(pending.policies);
    for (const entry of moved) {
      const before = this.published.get(scopedKey(entry.org, entry.node))?.workloads ?? [];
      for (const workload of [...before, ...entry.workloads])
        policies.add(scopedKey(entry.org, workload.deploymentPolicy));
    }
    return policies;
  }

  /** Plans every active policy and derives each affected node's workloads to publish. */
  plan(active: Set<string>, settings: RoundSettings): Round {
    const versions = new Map<string, string>();
    const touchedNodes = new Set<string>();
    const rollouts = new Map<string, { state: RolloutState; report: RolloutReport } | undefined>();
    const events: RolloutPlan['events'][number][] = [];
    const stillActive = new Set<string>();
    for (const key of active) {
      const [org, name] = splitKey(key);
      const placement = this.engine.placementOf(org, name);
      if (!placement) {
        rollouts.set(key, undefined);
        continue;
      }
      const members = this.members(org, name, placement.nodes, settings);
      const plan = this.planner.plan({
        deploymentPolicy: name,
        members,
        parallelism: settings.parallelism,
        memberDeadlineMs: settings.memberDeadlineMs,
        now: settings.now,
        state: this.states.get(key),
      });
      events.push(...plan.events);
      const settled =
        Object.keys(plan.state.groups).length === 0 && Object.keys(plan.state.ungrouped).length === 0;
      rollouts.set(
        key,
        settled
          ? undefined
          : { state: plan.state, report: { groups: plan.groups, ungrouped: plan.ungrouped } },
      );
      const changedBy = new Map(plan.changes.map((change) => [change.node, change.version]));
      for (const member of members) {
        const version = changedBy.get(member.node) ?? member.desiredVersion;
        if (version !== null) versions.set(`${scopedKey(org, member.node)}|${name}`, version);
        touchedNodes.add(scopedKey(org, member.node));
      }
      if (
        !settled ||
        members.some(
          (member) => (changedBy.get(member.node) ?? member.desiredVersion) !== member.targetVersion,
        )
      ) {
        stillActive.add(key);
      }
    }
    // Nodes that lost a policy are touched too: their published workloads still name it.
    for (const [nodeKey, entry] of this.published) {
      if (entry.workloads.some((workload) => active.has(scopedKey(entry.org, workload.deploymentPolicy)))) {
        touchedNodes.add(nodeKey);
      }
    }
    for (const nodeKey of this.restamped) touchedNodes.add(nodeKey);
    const changed: PlacedWorkloads[] = [];
    for (const nodeKey of touchedNodes) {
      const [org, id] = splitKey(nodeKey);
      const node = this.nodes.get(nodeKey);
      if (!node) continue;
      const workloads = this.workloadsToPublish(org, id, active, versions);
      const before = this.published.get(nodeKey);
      if (
        JSON.stringify(before?.workloads ?? []) !== JSON.stringify(workloads) ||
        (before?.schedulable ?? true) !== node.schedulable
      )
        changed.push({ org, node: id, workloads, schedulable: node.schedulable });
    }
    return { changed, rollouts, events, stillActive };
  }

  /** Marks the node for a new record when its record was placed in the other state. */
  private noteSchedulable(key: string, node: MirroredNode): void {
    if ((this.published.get(key)?.schedulable ?? true) !== node.schedulable) this.restamped.add(key);
  }

  private members(
    org: string,
    deploymentPolicy: string,
    placed: PolicyPlacement['nodes'],
    settings: RoundSettings,
  ): RolloutMember[] {
    const members: RolloutMember[] = [];
    for (const { node: id, version } of placed) {
      const node = this.nodes.get(scopedKey(org, id));
      const workload = this.engine
        .workloadsOf(org, id)
        .find((each) => each.deploymentPolicy === deploymentPolicy);
      if (!node || !workload) continue;
      const published = this.published.get(scopedKey(org, id))?.workloads;
      members.push(
        memberFromNode(node, {
          deploymentPolicy,
          service: workload.service,
          desiredVersion:
            published?.find((each) => each.deploymentPolicy === deploymentPolicy)?.service.version ?? null,
          targetVersion: version,
          now: settings.now,
          heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
        }),
      );
    }
    return members;
  }

  commit(round: Round): void {
    for (const entry of round.changed) this.published.set(scopedKey(entry.org, entry.node), entry);
    this.restamped.clear();
    for (const [key, rollout] of round.rollouts) {
      if (rollout) this.states.set(key, rollout.state);
      else this.states.delete(key);
    }
  }

  /** The engine's workloads for the node, at the version each active rollout allows now. */
  private workloadsToPublish(
    org: string,
    id: string,
    active: Set<string>,
    versions: Map<string, string>,
  ): DesiredWorkload[] {
    const before = this.published.get(scopedKey(org, id))?.workloads ?? [];
    return this.engine
      .workloadsOf(org, id)
      .map((workload): DesiredWorkload | undefined => {
        const key = scopedKey(org, workload.deploymentPolicy);
        if (!active.has(key))
          return before.find((each) => each.deploymentPolicy === workload.deploymentPolicy) ?? workload;
        const version = versions.get(`${scopedKey(org, id)}|${workload.deploymentPolicy}`);
        return version === undefined ? undefined : { ...workload, service: { ...workload.service, version } };
      })
      .filter((workload): workload is DesiredWorkload => workload !== undefined)
      .sort((a, b) =>
        a.deploymentPolicy < b.deploymentPolicy ? -1 : a.deploymentPolicy > b.deploymentPolicy ? 1 : 0,
      );
  }
}
