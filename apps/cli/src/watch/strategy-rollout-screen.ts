/**
 * A strategy rollout as `careen rollout show|watch` print it: a headline, then each group with a
 * bar of its nodes (done well, failed, left), its phase, and why it failed; then every node that
 * waits (for its HA group, the disruption gate or a soak) and why, and every node that failed
 * and why.
 */
import { type DeploymentOrchestrator } from '@careen/api-client';
import { formatColumns } from '../output/output';
import { since } from './rollout-screen';

type Schemas = DeploymentOrchestrator.components['schemas'];

export const FINISHED_ROLLOUT_STATES = ['completed', 'failed', 'cancelled'];
const BAR = 20;

/** `[#####xx.....]`: successes, failures, the rest. */
export function progressBar(total: number, successful: number, failed: number): string {
  if (total === 0) return `[${' '.repeat(BAR)}]`;
  const good = Math.round((successful / total) * BAR);
  const bad = Math.min(BAR - good, Math.round((failed / total) * BAR));
  return `[${'#'.repeat(good)}${'x'.repeat(bad)}${'.'.repeat(BAR - good - bad)}]`;
}

export function renderStrategyRollout(rollout: Schemas['RolloutResponse'], now: Date): string {
  const { counts } = rollout;
  const headline = [
    `rollout ${rollout.id} of ${rollout.strategy} v${rollout.strategy_version} to ${rollout.version}: ${rollout.state}`,
    `${counts.success} of ${counts.nodes} nodes done, ${counts.failure} failed · started ${since(rollout.created_at, now)}` +
      (rollout.current_group ? ` · now: ${rollout.current_group}` : ''),
    ...(rollout.reason ? [`${rollout.state === 'failed' ? 'failed' : 'note'}: ${rollout.reason}`] : []),
  ];
  const groups = formatColumns(
    [
      {
        header: 'GROUP',
        value: (row: Schemas['RolloutGroupResponse']) => `${row.name}${row.critical ? ' *' : ''}`,
      },
      { header: 'PROGRESS', value: (row) => progressBar(row.nodes, row.successful, row.failed) },
      {
        header: 'NODES',
        value: (row) =>
          `${row.successful}/${row.nodes}` +
          [row.prepared ? `${row.prepared} prepared` : '', row.failed ? `${row.failed} failed` : '']
            .filter(Boolean)
            .map((part) => ` (${part})`)
            .join(''),
      },
      { header: 'PHASE', value: (row) => row.phase },
      { header: 'REASON', value: (row) => row.reason ?? '' },
    ],
    rollout.groups,
  );
  const failed = rollout.nodes.filter((node) => node.state === 'failure');
  const failures =
    failed.length === 0
      ? ''
      : `\nfailed nodes:\n${formatColumns(
          [
            { header: 'NODE', value: (row: (typeof failed)[number]) => row.node },
            { header: 'GROUP', value: (row) => row.group ?? '' },
            { header: 'ERROR', value: (row) => row.error ?? row.status ?? '' },
          ],
          failed,
        )}`;
  // Nodes of the phase under way that wait, and why: their HA group's slot, the disruption gate, a soak.
  const waiting = rollout.nodes.filter((node) => node.state !== 'failure' && node.error);
  const waits =
    waiting.length === 0
      ? ''
      : `\nwaiting nodes:\n${formatColumns(
          [
            { header: 'NODE', value: (row: (typeof waiting)[number]) => row.node },
            { header: 'GROUP', value: (row) => row.group ?? '' },
            { header: 'STATUS', value: (row) => row.status ?? '' },
            { header: 'WHY', value: (row) => row.error ?? '' },
          ],
          waiting,
        )}`;
  return `${headline.join('\n')}\n\n${groups}${waits}${failures}`;
}
