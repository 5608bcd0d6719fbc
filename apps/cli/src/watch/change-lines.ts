/**
 * What a `watch` prints into a pipe or a file: the state of the watched thing as lines that
 * change only when it does, one fact per line (a node's status, a group's phase), so that
 * `watchLive` can append just the lines that changed. Never a relative time or an ETA, which
 * would make every look a change.
 */
import { type DeploymentOrchestrator } from '@careen/api-client';
import { type SessionWithTimeline } from './maintenance-screen';
import { rolloutHeadline } from './rollout-screen';
import { type RolloutView } from './rollout-view';
import { progressBar } from './strategy-rollout-screen';

type StrategyRollout = DeploymentOrchestrator.components['schemas']['RolloutResponse'];

export function rolloutChangeLines(view: RolloutView): string[] {
  const lines = rolloutHeadline(view);
  for (const group of view.groups)
    for (const member of group.members)
      lines.push(
        `node ${member.node}${group.name === null ? '' : ` (HA group ${group.name})`}: ${member.status}` +
          `${member.version ? ` at ${member.version}` : ''}${member.error ? `: ${member.error}` : ''}`,
      );
  return lines;
}

export function strategyRolloutChangeLines(rollout: StrategyRollout): string[] {
  const { counts } = rollout;
  const lines = [
    `rollout ${rollout.id} of ${rollout.strategy} v${rollout.strategy_version} to ${rollout.version}: ${rollout.state}`,
    `${counts.success} of ${counts.nodes} nodes done, ${counts.failure} failed` +
      (rollout.current_group ? ` · now: ${rollout.current_group}` : ''),
    ...(rollout.reason ? [`${rollout.state === 'failed' ? 'failed' : 'note'}: ${rollout.reason}`] : []),
  ];
  for (const group of rollout.groups)
    lines.push(
      `group ${group.name}${group.critical ? ' *' : ''} ${progressBar(group.nodes, group.successful, group.failed)} ` +
        `${group.successful}/${group.nodes}${group.failed ? ` (${group.failed} failed)` : ''} ${group.phase}` +
        `${group.reason ? `: ${group.reason}` : ''}`,
    );
  for (const node of rollout.nodes.filter((each) => each.state === 'failure'))
    lines.push(
      `failed: node ${node.node}${node.group ? ` (group ${node.group})` : ''}: ${node.error ?? node.status ?? ''}`,
    );
  return lines;
}

export function sessionChangeLines(session: SessionWithTimeline): string[] {
  const done = session.hosts.filter((host) => host.phase === 'done').length;
  const skipped = session.hosts.filter((host) => host.phase === 'skipped').length;
  const lines = [
    `session ${session.session_id} (${session.org}): ${session.state}${session.paused ? ', paused' : ''}`,
    `hosts ${done}/${session.hosts.length} done${skipped > 0 ? `, ${skipped} skipped` : ''} · host action ${session.host_action.kind}`,
    ...(session.failure ? [`failed: ${session.failure}`] : []),
  ];
  for (const host of session.hosts)
    lines.push(
      `host ${host.host}${host.ha_group ? ` (HA group ${host.ha_group})` : ''}: ${host.phase}${host.reason ? `: ${host.reason}` : ''}`,
    );
  for (const project of session.projects) {
    const ask = project.asks.at(-1);
    lines.push(
      `project ${project.project_id}: ${project.instance_ids.length} instance(s), ${project.subscribed ? 'subscribed' : 'not subscribed'}, ` +
        (ask ? `last ask ${ask.state}${ask.host ? ` ${ask.host}` : ''}: ${ask.answer}` : 'not asked'),
    );
  }
  // The whole timeline, not its tail: an entry is printed once, when it first appears.
  for (const entry of session.timeline)
    lines.push(
      `${entry.at}  ${entry.kind} ${[entry.project_id ?? (entry.host ? 'admin' : ''), entry.state ?? '', entry.host ?? ''].filter(Boolean).join(' ')}`,
    );
  return lines;
}
