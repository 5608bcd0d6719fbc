import { type DeploymentOrchestrator } from '@careen/api-client';
import { renderStrategyRollout } from './strategy-rollout-screen';

type Schemas = DeploymentOrchestrator.components['schemas'];

const NOW = new Date('2026-12-06T10:00:00Z');
const node = (
  id: string,
  state: Schemas['RolloutNodeResponse']['state'],
  status: string | null,
  error: string | null,
): Schemas['RolloutNodeResponse'] => ({
  node: id,
  state,
  group: 'control-nodes',
  status,
  error,
  sent_at: null,
  prepared_at: null,
  finished_at: null,
});

const rollout = (nodes: Schemas['RolloutNodeResponse'][]): Schemas['RolloutResponse'] => ({
  id: 'r-1',
  org: 'acme',
  strategy: 'deployment-strategy',
  strategy_version: 1,
  version: '2.0.0',
  allow_downgrade: false,
  state: 'running',
  reason: null,
  current_group: 'control-nodes',
  phase_timeout_seconds: 3600,
  stages: [['control-nodes']],
  counts: { nodes: nodes.length, 'not started': 0, prepared: 0, success: 0, failure: 0 },
  warnings: [],
  groups: [],
  nodes,
  created_by: 'acme/ada',
  created_at: '2026-12-06T09:58:00Z',
  updated_at: '2026-12-06T09:59:00Z',
  finished_at: null,
});

describe('renderStrategyRollout', () => {
  it('lists the nodes that wait and why, apart from those that failed', () => {
    const screen = renderStrategyRollout(
      rollout([
        node('n1', 'prepared', 'ha-waiting', 'freeze "year-end" until 2027-01-03T00:00:00.000Z'),
        node('n2', 'prepared', 'soaking', 'gate "soak" soaks the step until 2026-12-06T10:05:00.000Z'),
        node('n3', 'failure', 'download-failed', 'download-failed: checksum'),
        node('n4', 'prepared', 'initiated', null),
      ]),
      NOW,
    );
    const waiting = screen.slice(screen.indexOf('waiting nodes:'), screen.indexOf('failed nodes:'));
    expect(waiting).toMatch(/n1 +control-nodes +ha-waiting +freeze "year-end" until 2027-01-03/);
    expect(waiting).toMatch(/n2 +control-nodes +soaking +gate "soak" soaks the step until/);
    expect(waiting).not.toContain('n3');
    expect(waiting).not.toContain('n4');
    expect(screen.slice(screen.indexOf('failed nodes:'))).toContain('download-failed: checksum');
  });

  it('has no waiting section when nothing waits', () => {
    expect(renderStrategyRollout(rollout([node('n4', 'prepared', 'initiated', null)]), NOW)).not.toContain(
      'waiting nodes:',
    );
  });
});
