/** A rollout as stored: what it runs (the strategy version's document and its plan) and how far it got. */
import { type StrategyPlan } from '../strategies/strategy-plan';
import { type DeploymentStrategy } from '@careen/contracts';
import { type Phase, type RolloutProgress } from './rollout-engine';

export const ROLLOUT_STATES = [
  'running',
  'paused',
  'cancelling',
  'completed',
  'failed',
  'cancelled',
] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
export const FINISHED_ROLLOUT_STATES: readonly RolloutState[] = ['completed', 'failed', 'cancelled'];

export interface RolloutRecord {
  id: string;
  org: string;
  strategy: string;
  strategyVersion: number;
  targetVersion: string;
  /** The operator allowed nodes above `targetVersion` to go down to it: its policies say so. */
  allowDowngrade: boolean;
  state: RolloutState;
  reason: string | null;
  phaseTimeoutSeconds: number;
  document: DeploymentStrategy;
  plan: StrategyPlan;
  progress: RolloutProgress;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export const ROLLOUT_POLICY_PREFIX = 'rollout-';

/** The node-targeted management policy through which a group's phase is sent. */
export function phasePolicyName(
  record: Pick<RolloutRecord, 'id' | 'plan'>,
  group: string,
  phase: Phase,
): string {
  const index = record.plan.groups.findIndex((each) => each.name === group);
  return `${ROLLOUT_POLICY_PREFIX}${record.id.slice(0, 8)}-${index}-${phase}`;
}

/** Who holds a node, as a refusal names it. */
export const rolloutHolder = (id: string) => `rollout ${id}`;
export const upgradeHolder = (id: string) => `upgrade ${id}`;
