/**
 * Starting and steering rollouts. A rollout runs one version of a strategy (the newest unless
 * one is named) to a target agent version, over the nodes its plan chose when it started; those
 * nodes are held by it until it ends, so a second rollout over any of them is refused naming
 * the holder. A target below the version some of those nodes run is refused, naming them,
 * unless the operator allows the downgrade, which the rollout's policies then carry. Pause and
 * resume reach the phase under way at the exchange through commands the driver carries out
 * after the change commits; a cancel is carried out by the driver once no node is in the middle
 * of a step.
 */
import { type RolloutEventName } from '@careen/contracts';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { type FleetGateway } from '../fleet/fleet-gateway';
import {
  packageNotFound,
  rolloutDowngradeRefused,
  rolloutNotFound,
  rolloutStateRefused,
  unknownStrategy,
} from '../orchestrator.errors';
import { planStrategy } from '../strategies/strategy-plan';
import { type StrategyStore } from '../strategies/strategy-store';
import { type ExchangeCommand } from '../driver/exchange-command';
import { pauseCommands } from './rollout-decision';
import { downgradedNodes } from './rollout-downgrades';
import { initialProgress } from './rollout-engine';
import { type RolloutEvents } from './rollout-events';
import { rolloutHolder, type RolloutRecord, type RolloutState } from './rollout-record';
import { claimNodes, type RolloutStore } from './rollout-store';
import { rolloutView, type RolloutView } from './rollout-view';

export interface StartRollout {
  strategy: string;
  strategy_version?: number;
  version: string;
  phase_timeout_seconds?: number;
  allow_downgrade?: boolean;
}

export const DEFAULT_PHASE_TIMEOUT_SECONDS = 3600;

export class Rollouts {
  /** Called when a rollout starts or changes state, so that the driver looks at once. */
  onChange: () => void = () => undefined;

  constructor(
    private readonly store: RolloutStore,
    private readonly strategies: StrategyStore,
    private readonly fleet: FleetGateway,
    private readonly events: RolloutEvents,
  ) {}

  async start(org: string, actor: string, request: StartRollout): Promise<RolloutView> {
    const strategy = await this.strategies.get(org, request.strategy, request.strategy_version);
    if (!strategy) throw unknownStrategy(request.strategy, request.strategy_version);
    if (!(await this.fleet.packageExists(request.version))) throw packageNotFound(request.version);
    const [nodes, held] = await Promise.all([this.fleet.nodes(org), this.fleet.upgradingPolicies(org)]);
    const plan = planStrategy(strategy.document, nodes, held);
    const progress = initialProgress(plan.groups);
    const allowDowngrade = request.allow_downgrade === true;
    const below = downgradedNodes(nodes, Object.keys(progress.nodes), request.version);
    if (below.length > 0 && !allowDowngrade) throw rolloutDowngradeRefused(request.version, below);
    const now = new Date();
    const record: RolloutRecord = {
      id: randomUUID(),
      org,
      strategy: strategy.name,
      strategyVersion: strategy.version,
      targetVersion: request.version,
      allowDowngrade,
      state: 'running',
      reason: null,
      phaseTimeoutSeconds: request.phase_timeout_seconds ?? DEFAULT_PHASE_TIMEOUT_SECONDS,
      document: strategy.document,
      plan,
      progress,
      createdBy: actor,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    };
    await this.store.transaction(async (manager) => {
      await claimNodes(manager, org, Object.keys(record.progress.nodes), rolloutHolder(record.id));
      await this.store.insert(manager, record);
      await this.announce(manager, record, 'started');
    });
    this.onChange();
    return rolloutView(record);
  }

  async list(org: string, limit: number): Promise<RolloutView[]> {
    return (await this.store.list(org, limit)).map((record) => rolloutView(record, false));
  }

  async get(id: string): Promise<RolloutView> {
    return rolloutView(await this.found(id));
  }

  async orgOf(id: string): Promise<string> {
    return (await this.found(id)).org;
  }

  /** Nothing more is sent; nodes of the phase under way that have not started wait. */
  pause(id: string): Promise<RolloutView> {
    return this.change(id, 'pause', ['running'], 'paused', (record) => pauseCommands(record, true));
  }

  resume(id: string): Promise<RolloutView> {
    return this.change(id, 'resume', ['paused'], 'running', (record) => pauseCommands(record, false));
  }

  /** Stops sending; nodes in the middle of a step finish, then no policy is left behind. */
  cancel(id: string): Promise<RolloutView> {
    return this.change(id, 'cancel', ['running', 'paused'], 'cancelling');
  }

  /**
   * Moves the rollout from one of `from` to `to`, storing with it what the exchange is to be asked
   * (`commands`), which the driver carries out once this has committed: the rollout stays locked
   * only for the database's work.
   */
  private async change(
    id: string,
    action: string,
    from: readonly RolloutState[],
    to: RolloutState,
    commands?: (record: RolloutRecord) => ExchangeCommand[],
  ): Promise<RolloutView> {
    const view = await this.store.transaction(async (manager) => {
      const record = await this.store.lock(manager, id);
      if (!record) throw rolloutNotFound(id);
      if (record.state === to) return rolloutView(record);
      if (!from.includes(record.state)) throw rolloutStateRefused(id, record.state, action);
      await this.store.commands.add(manager, rolloutHolder(id), commands?.(record) ?? []);
      record.state = to;
      await this.store.save(manager, record);
      await this.announce(manager, record, to === 'running' ? 'resumed' : (to as RolloutEventName));
      return rolloutView(record);
    });
    this.onChange();
    return view;
  }

  private announce(manager: EntityManager, record: RolloutRecord, event: RolloutEventName): Promise<void> {
    return this.events.write(manager, record, [{ kind: 'rollout', event }]);
  }

  private async found(id: string): Promise<RolloutRecord> {
    const record = await this.store.get(id);
    if (!record) throw rolloutNotFound(id);
    return record;
  }
}
