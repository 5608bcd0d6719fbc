/**
 * A small rollout for tests of the driver and its decisions: group `first` (nodes a1, a2, all
 * of which must succeed) and then group `second` (node b1), which depends on it; both critical.
 */
import { type DeploymentStrategy } from '@careen/contracts';
import { initialProgress } from '../rollouts/rollout-engine';
import { type RolloutRecord } from '../rollouts/rollout-record';
import { planStrategy } from '../strategies/strategy-plan';

export const FIXTURE_ROLLOUT_ID = '0f1e2d3c-4b5a-4968-8776-655443322110';
export const FIXTURE_STARTED = new Date('2026-12-01T00:00:00.000Z');

const byName = (...node_names: string[]) => ({ node_names, node_tags: [], node_labels: [], rack_names: [] });

const STRATEGY: DeploymentStrategy = {
  name: 'two-step',
  groups: [
    {
      name: 'first',
      critical: true,
      depends_on: [],
      selectors: [byName('a1', 'a2')],
      success_criteria: { percent_successful_nodes: 100 },
    },
    { name: 'second', critical: true, depends_on: ['first'], selectors: [byName('b1')] },
  ],
};

const node = (id: string) => ({ id, tags: [], labels: {}, rack: null, haGroup: null });

export function fixtureRollout(overrides: Partial<RolloutRecord> = {}): RolloutRecord {
  const plan = planStrategy(STRATEGY, ['a1', 'a2', 'b1'].map(node));
  return {
    id: FIXTURE_ROLLOUT_ID,
    org: 'acme',
    strategy: STRATEGY.name,
    strategyVersion: 1,
    targetVersion: '2.0.0',
    allowDowngrade: false,
    state: 'running',
    reason: null,
    phaseTimeoutSeconds: 60,
    document: STRATEGY,
    plan,
    progress: initialProgress(plan.groups),
    createdBy: 'acme/admin',
    createdAt: FIXTURE_STARTED,
    updatedAt: FIXTURE_STARTED,
    finishedAt: null,
    ...overrides,
  };
}
