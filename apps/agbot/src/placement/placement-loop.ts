/**
 * The leader's placement loop. It keeps the placement engine in step with the mirror, lets
 * each round (placement-rounds.ts) gate every version change through the rollout planner,
 * records what it wants in its own schema and then tells the exchange (workload-delivery.ts). It wakes on every relevant change and once a second
 * (deadlines and heartbeats age without changes).
 */
import { type ChangePayload } from '@careen/contracts';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { type ExchangeClient } from '@careen/service';
import { type LeaderTask } from '../leadership/leader-task';
import { type ChangeListener } from '../mirror/change-listener';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { PlacementEngine } from './placement-engine';
import { PlacementRounds, type PendingChanges } from './placement-rounds';
import { type PlacementPolicy, type PlacementService, scopedKey, splitKey } from './placement.types';
import { type RolloutState } from '../rollout/rollout.types';
import { PlacementStore } from './placement-store';
import { InstanceGroupStore } from '../instance-groups/instance-group-store';
import { deliverWorkloads } from './workload-delivery';

const TICK_MS = 1_000;
const MIN_PAUSE_MS = 10;

@Injectable()
export class PlacementLoop implements LeaderTask, ChangeListener {
  private pending: PendingChanges | undefined;
  private wake: (() => void) | undefined;
  /** A change committed while a round was running: the next round starts at once. */
  private woken = false;
  private readonly store: PlacementStore;
  private readonly groups: InstanceGroupStore;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    private readonly dataSource: DataSource,
    private readonly mirror: ExchangeMirror,
  ) {
    this.store = new PlacementStore(dataSource);
    this.groups = new InstanceGroupStore(dataSource);
  }

  /** A declared instance group changed (instance-group-follower.ts): its limits are read again. */
  instanceGroupsChanged(): void {
    const pending = this.pending;
    if (!pending) return;
    pending.groups = true;
    this.woken = true;
    this.wake?.();
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
    this.pending = noChanges();
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
        instanceGroups: await this.groups.placementRules(),
      });
      const loop = new PlacementRounds(engine, nodes, published, states, () => this.groups.placementRules());
      let active = new Set(policies.map((policy) => scopedKey(policy.org, policy.name)));
      while (!signal.aborted) {
        const started = performance.now();
        const pending = this.pending;
        this.pending = noChanges();
        try {
          active = new Set([...active, ...(await loop.absorb(pending, this.mirror))]);
          active = await this.tick(loop, active, exchange);
        } catch (error) {
          // The database or the exchange away for a moment: what was pending is tried again next round.
          this.logger.warn({ err: String(error) }, 'placement round failed; retrying');
          this.keepPendingChanges(pending);
        }
        await this.nextTick(signal, performance.now() - started);
      }
    } finally {
      this.pending = undefined;
    }
  }

  private keepPendingChanges(failed: PendingChanges): void {
    const pending = this.pending!;
    for (const node of failed.nodes) pending.nodes.add(node);
    for (const policy of failed.policies) pending.policies.add(policy);
    pending.services ||= failed.services;
    pending.groups ||= failed.groups;
  }

  /** One round: plan the active policies, record and deliver what changed; answers the policies still active. */
  private async tick(
    loop: PlacementRounds,
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
    await deliverWorkloads(await this.store.unpublished(), exchange, this.store, this.logger);
    return round.stillActive;
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

function noChanges(): PendingChanges {
  return { nodes: new Set(), policies: new Set(), services: false, groups: false };
}
