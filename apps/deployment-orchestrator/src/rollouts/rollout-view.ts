/** A rollout as clients read it: the report of every group and, unless left out, every node. */
import { type GroupPhase, groupRun, nodeRun, type NodeState, RolloutEngine } from './rollout-engine';
import { type RolloutRecord, type RolloutState } from './rollout-record';

export interface GroupReport {
  name: string;
  critical: boolean;
  depends_on: string[];
  phase: GroupPhase;
  reason: string | null;
  ha_groups: string[];
  nodes: number;
  /** Nodes of the group prepared and not yet deployed: a prepare's progress. */
  prepared: number;
  successful: number;
  failed: number;
  started_at: string | null;
  finished_at: string | null;
}

export interface NodeReport {
  node: string;
  state: NodeState;
  group: string | null;
  status: string | null;
  error: string | null;
  sent_at: string | null;
  prepared_at: string | null;
  finished_at: string | null;
}

export interface RolloutView {
  id: string;
  org: string;
  strategy: string;
  strategy_version: number;
  version: string;
  allow_downgrade: boolean;
  state: RolloutState;
  reason: string | null;
  current_group: string | null;
  phase_timeout_seconds: number;
  stages: string[][];
  counts: Record<'nodes' | NodeState, number>;
  /** What the plan warned of when the rollout started (groups without nodes, nodes held). */
  warnings: string[];
  groups: GroupReport[];
  nodes?: NodeReport[];
  created_by: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export function rolloutView(record: RolloutRecord, withNodes = true): RolloutView {
  const engine = new RolloutEngine(record.document, record.plan.groups);
  const { progress } = record;
  const nodeRuns = Object.entries(progress.nodes);
  const counts = { nodes: nodeRuns.length, 'not started': 0, prepared: 0, success: 0, failure: 0 };
  for (const [, run] of nodeRuns) counts[run.state] += 1;
  return {
    id: record.id,
    org: record.org,
    strategy: record.strategy,
    strategy_version: record.strategyVersion,
    version: record.targetVersion,
    allow_downgrade: record.allowDowngrade,
    state: record.state,
    reason: record.reason,
    current_group: progress.current,
    phase_timeout_seconds: record.phaseTimeoutSeconds,
    stages: record.plan.stages,
    counts,
    warnings: record.plan.warnings ?? [],
    groups: record.plan.groups.map((group) => {
      const run = groupRun(progress, group.name);
      const judged = engine.counts(progress, group.name, 'deploy');
      const prepared = group.nodes.filter((node) => nodeRun(progress, node).state === 'prepared').length;
      return {
        name: group.name,
        critical: group.critical,
        depends_on: group.depends_on,
        phase: run.phase,
        reason: run.reason ?? null,
        ha_groups: group.ha_groups,
        nodes: judged.total,
        prepared,
        successful: judged.successful,
        failed: judged.failed,
        started_at: run.startedAt ?? null,
        finished_at: run.finishedAt ?? null,
      };
    }),
    ...(withNodes && {
      nodes: nodeRuns.map(([node, run]) => ({
        node,
        state: run.state,
        group: run.group ?? null,
        status: run.status ?? null,
        error: run.error ?? null,
        sent_at: run.sentAt ?? null,
        prepared_at: run.preparedAt ?? null,
        finished_at: run.finishedAt ?? null,
      })),
    }),
    created_by: record.createdBy,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    finished_at: record.finishedAt?.toISOString() ?? null,
  };
}
