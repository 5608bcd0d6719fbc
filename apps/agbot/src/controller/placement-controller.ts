/**
 * The leader's placement loop. It keeps the placement engine in step with the mirror, lets
 * the rollout planner gate every version change, records what it wants in its own schema and
 * then tells the exchange, node by node. It wakes on every relevant change and once a second
 * (deadlines and heartbeats age without changes).
 */
import { type ChangePayload } from '@careen/contracts';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { ExchangeRequestError, type ExchangeClient } from '../exchange/exchange-client';
import { type LeaderTask } from '../leadership/leader-task';
import { type ChangeListener } from '../mirror/change-listener';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { type MirroredNode } from '../mirror/mirrored-node';
import { PlacementEngine } from '../placement/placement-engine';
import {
  type DesiredWorkload,
  type NodeWorkloads,
  type PlacementPolicy,
  type PlacementService,
  type PolicyPlacement,
  scopedKey,
  splitKey,
} from '../placement/placement.types';
import { memberFromNode } from '../rollout/member-facts';
import { RolloutPlanner } from '../rollout/rollout-planner';
import { type RolloutMember, type RolloutPlan, type RolloutState } from '../rollout/rollout.types';
import { PlacementStore } from './placement-store';

const TICK_MS = 1_000;
const MIN_PAUSE_MS = 10;
const PUBLISH_CONCURRENCY = 8;
const MARK_BATCH = 256;

interface Pending {
  nodes: Set<string>;
  policies: Set<string>;
  services: boolean;
}

@Injectable()
export class PlacementController implements LeaderTask, ChangeListener {
  private pending: Pending | undefined;
  private wake: (() => void) | undefined;
  /** A change committed while a round was running: the next round starts at once. */
  private woken = false;
  private readonly store: PlacementStore;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    private readonly dataSource: DataSource,
    private readonly mirror: ExchangeMirror,
  ) {
    this.store = new PlacementStore(dataSource);
  }

  /**
   * Learns of a change once the mirror shows it: a round that took it in before the commit
   * would read the mirror without it and never look again.
   */
  afterCommit(change: ChangePayload): void {
    const pending = this.pending;
    if (!pending) return;
    const key = scopedKey(change.org, change.resourceId);
    if (change.resource === 'node') pending.nodes.add(key);
    else if (change.resource === 'deploymentPolicy') pending.policies.add(key);
    else if (change.resource === 'service') pending.services = true;
    else return;
    this.woken = true;
    this.wake?.();
  }

  async run(signal: AbortSignal, exchange: ExchangeClient | undefined): Promise<void> {
    if (!exchange) return;
    this.pending = { nodes: new Set(), policies: new Set(), services: false };
    try {
      const engine = new PlacementEngine();
      const published = new Map(
        (await this.store.allWorkloads()).map((entry) => [scopedKey(entry.org, entry.node), entry]),
      );
      const states = new Map(
        (await this.store.rolloutStates<RolloutState>()).map((row) => [
          scopedKey(row.org, row.deploymentPolicy),
          row.state,
        ]),
      );
      const nodes = new Map(
        (await this.mirror.allNodes()).map((node) => [scopedKey(node.org, node.id), node]),
      );
      const policies = await this.mirror.allResources<PlacementPolicy>('deploymentPolicy');
      engine.load({
        nodes: nodes.values(),
        policies,
        services: await this.mirror.allResources<PlacementService>('service'),
        current: published.values(),
      });
      const loop = new PlacementLoop(engine, nodes, published, states);
      let active = new Set(policies.map((policy) => scopedKey(policy.org, policy.name)));
      while (!signal.aborted) {
        const started = performance.now();
        const pending = this.pending;
        this.pending = { nodes: new Set(), policies: new Set(), services: false };
        try {
          active = new Set([...active, ...(await loop.absorb(pending, this.mirror))]);
          active = await this.tick(loop, active, exchange);
        } catch (error) {
          // The database or the exchange away for a moment: what was pending is tried again next round.
          this.logger.warn({ err: String(error) }, 'placement round failed; retrying');
          this.keepPending(pending);
        }
        await this.nextTick(signal, performance.now() - started);
      }
    } finally {
      this.pending = undefined;
    }
  }

  private keepPending(failed: Pending): void {
    const pending = this.pending!;
    for (const node of failed.nodes) pending.nodes.add(node);
    for (const policy of failed.policies) pending.policies.add(policy);
    pending.services ||= failed.services;
  }

  /** One round: plan the active policies, record and deliver what changed; answers the policies still active. */
  private async tick(
    loop: PlacementLoop,
    active: Set<string>,
    exchange: ExchangeClient,
  ): Promise<Set<string>> {
    const now = new Date();
    const round = loop.plan(active, {
      now,
      parallelism: this.config.CAREEN_AGBOT_ROLLOUT_PARALLELISM,
      memberDeadlineMs: this.config.CAREEN_AGBOT_ROLLOUT_DEADLINE_SECONDS * 1_000,
      heartbeatTimeoutMs: this.config.CAREEN_AGBOT_OFFLINE_AFTER_SECONDS * 1_000,
    });
    for (const event of round.events) this.logger.info({ ...event }, `rollout ${event.type}`);
    await this.dataSource.transaction(async (manager) => {
      await this.store.save(manager, round.changed);
      for (const [key, rollout] of round.rollouts) {
        const [org, name] = splitKey(key);
        await this.store.saveRollout(manager, org, name, rollout);
      }
    });
    loop.commit(round);
    await this.deliver(await this.store.unpublished(), exchange);
    return round.stillActive;
  }

  private async deliver(entries: NodeWorkloads[], exchange: ExchangeClient): Promise<void> {
    let next = 0;
    let delivered: NodeWorkloads[] = [];
    // Marked in batches: a leader that dies in between only makes its successor deliver those again.
    const markDelivered = async (): Promise<void> => {
      const batch = delivered;
      delivered = [];
      await this.store.markPublished(batch);
    };
    const worker = async (): Promise<void> => {
      for (let entry = entries[next++]; entry; entry = entries[next++]) {
        try {
          await exchange.putDesiredWorkloads(entry.org, entry.node, [...entry.workloads]);
          delivered.push(entry);
          if (delivered.length >= MARK_BATCH) await markDelivered();
        } catch (error) {
          if (error instanceof ExchangeRequestError && error.status === 404) {
            await this.store.forget(entry.org, entry.node);
          } else {
            this.logger.warn(
              { org: entry.org, node: entry.node, err: String(error) },
              'desired workloads not delivered; will retry',
            );
          }
        }
      }
    };
    await Promise.all(Array.from({ length: PUBLISH_CONCURRENCY }, worker));
    await markDelivered();
  }

  /**
   * Waits for the next round: a second, or until a change wakes it. Changes that came while a
   * round ran start the next one after a pause as long as that round (at least MIN_PAUSE_MS), so
   * a steady flow of changes is taken in batches and rounds never take more than about half the
   * time.
   */
  private nextTick(signal: AbortSignal, lastRoundMs: number): Promise<void> {
    const woken = this.woken;
    this.woken = false;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        // Whatever came until now is taken in by the round that starts.
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(
        done,
        woken ? Math.min(Math.max(lastRoundMs, MIN_PAUSE_MS), TICK_MS) : TICK_MS,
      );
      signal.addEventListener('abort', done, { once: true });
      if (!woken) this.wake = done;
    });
  }
}

/** What the rollouts route shows of a rollout under way. */
export type RolloutReport = Pick<RolloutPlan, 'groups' | 'ungrouped'>;

interface RoundSettings {
  now: Date;
  parallelism: number;
  memberDeadlineMs: number;
  heartbeatTimeoutMs: number;
}

interface Round {
  changed: NodeWorkloads[];
  /** Per policy key: the rollout to keep, or undefined when it is over. */
  rollouts: Map<string, { state: RolloutState; report: RolloutReport } | undefined>;
  events: RolloutPlan['events'];
  stillActive: Set<string>;
}

/** The loop's memory between rounds: the engine, the mirrored nodes, what was published, rollout states. */
class PlacementLoop {
  private readonly planner = new RolloutPlanner();

  constructor(
    private readonly engine: PlacementEngine,
    private readonly nodes: Map<string, MirroredNode>,
    private readonly published: Map<string, NodeWorkloads>,
    private readonly states: Map<string, RolloutState>,
  ) {}

  /** Feeds pending changes to the engine; answers the policies whose placement moved. */
  async absorb(pending: Pending, mirror: ExchangeMirror): Promise<Set<string>> {
    const moved: NodeWorkloads[] = [];
    if (pending.services)
      moved.push(...this.engine.setServices(await mirror.allResources<PlacementService>('service')));
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
    const changed: NodeWorkloads[] = [];
    for (const nodeKey of touchedNodes) {
      const [org, id] = splitKey(nodeKey);
      if (!this.nodes.has(nodeKey)) continue;
      const workloads = this.workloadsToPublish(org, id, active, versions);
      const before = this.published.get(nodeKey)?.workloads ?? [];
      if (JSON.stringify(before) !== JSON.stringify(workloads)) changed.push({ org, node: id, workloads });
    }
    return { changed, rollouts, events, stillActive };
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
