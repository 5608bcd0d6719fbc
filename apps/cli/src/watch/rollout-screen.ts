/**
 * Draws a rollout view as lines of text for people: a header with the policy's state, counts
 * and ETA, the halted groups and why, then each node by group. The same text serves a
 * terminal (redrawn in place) and a pipe (appended when it changes).
 */
import { type Column, formatColumns } from '../output/output';
import { type MemberView, type RolloutView } from './rollout-view';

/**
 * The lines a rollout's rendering starts with, on a terminal and into a pipe alike: the policy
 * and its state, how many nodes are done, then what holds it up (a missing package, halts).
 */
export function rolloutHeadline(view: RolloutView): string[] {
  const { policy } = view;
  const target = policy.agentUpgradePolicy?.atLeastVersion ?? 'current';
  const state =
    policy.state === 'disabled'
      ? `disabled${policy.disabledReason ? `: ${policy.disabledReason}` : ''}`
      : policy.state;
  const counts = view.counts.map(([status, count]) => `${count} ${status}`).join(', ');
  const lines = [
    `management policy ${policy.name} to ${target}: ${state}`,
    `${view.final} of ${view.total} nodes done (${counts || 'none reported'})`,
  ];
  if (view.missingPackage) lines.push(`no-package: ${view.missingPackage}`);
  for (const group of view.groups) {
    if (group.halted)
      lines.push(
        `halted: HA group ${group.name} waits for ${group.halted.node} (${group.halted.status}${group.halted.error ? `: ${group.halted.error}` : ''})`,
      );
  }
  return lines;
}

export function renderRollout(view: RolloutView, now: Date, etaSeconds: number | undefined): string {
  const eta = view.done ? 'done' : etaSeconds === undefined ? 'ETA unknown' : `ETA ${duration(etaSeconds)}`;
  const [title, progress, ...notes] = rolloutHeadline(view);
  const lines = [title!, `${progress}; ${eta}`, ...notes];
  const rows = view.groups.flatMap((group) => group.members.map((member) => ({ group: group.name, member })));
  const columns: Column<{ group: string | null; member: MemberView }>[] = [
    { header: 'HA GROUP', value: (row) => row.group ?? '-' },
    { header: 'NODE', value: (row) => row.member.node },
    { header: 'STATUS', value: (row) => row.member.status },
    { header: 'VERSION', value: (row) => row.member.version },
    { header: 'LAST SEEN', value: (row) => since(row.member.lastSeen, now) },
    { header: 'ERROR', value: (row) => row.member.error },
  ];
  return `${lines.join('\n')}\n\n${rows.length > 0 ? formatColumns(columns, rows) : 'the policy applies to no nodes\n'}`;
}

/** "12s ago", "3m ago", "2h ago"; "never" for no time. */
export function since(iso: string | null | undefined, now: Date): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  return `${duration(seconds)} ago`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}
