/** A session as its routes show it: Doctor's snake_case, per-host and per-project progress, the timeline. */
import {
  type InstanceAction,
  type RepliedState,
  type ReplyTimeoutPolicy,
  type SessionState,
} from '@careen/contracts';
import { MaintenanceWorkflow } from '../workflow/maintenance-workflow';
import { type AskAnswer, type HostPhase, hostProgress } from '../workflow/workflow.types';
import { countHosts, describeCounts, type HostCounts } from './host-counts';
import { type SessionRecord, type TimelineEntry } from './session-record';

/** Who holds the HA-group slot a host is waiting for, as the agbot named it when it refused. */
export interface SlotHolderView {
  /** `agent-upgrade`, `fleetlock` or `maintenance`. */
  kind: string;
  node: string;
  /** The management policy of an agent upgrade; null for other kinds. */
  management_policy: string | null;
  /** The open maintenance session that holds the node, for a maintenance slot. */
  session: string | null;
  /** When the holder was granted the slot. */
  since: string;
  lease_expires_at: string | null;
  halted: boolean;
  /** When the agbot last refused the slot. */
  seen_at: string;
}

export interface SessionView {
  session_id: string;
  org: string;
  state: SessionState;
  paused: boolean;
  failure: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  actions_at: string;
  host_action: SessionRecord['hostAction'];
  max_parallel_hosts: number;
  metadata: Record<string, unknown>;
  counts: HostCounts;
  /** The counts in words, as the CLI and the console show them. */
  hosts_summary: string;
  hosts: {
    host: string;
    ha_group: string | null;
    phase: HostPhase;
    since: string;
    reason: string | null;
    /** `interrupted`: the phase it was in when the session ended. */
    interrupted_in: HostPhase | null;
    /** `slot`: who holds the slot it waits for, once the agbot refused it for a member of its group. */
    waiting_for: SlotHolderView | null;
  }[];
  projects: {
    project_id: string;
    subscribed: boolean;
    reply_timeout_seconds: number;
    reply_timeout_policy: ReplyTimeoutPolicy;
    instance_ids: string[];
    asks: {
      state: RepliedState;
      host: string | null;
      asked_at: string;
      deadline: string;
      answer: AskAnswer;
      answered_at: string | null;
      instance_actions: Record<string, InstanceAction> | null;
    }[];
  }[];
  timeline?: {
    at: string;
    kind: TimelineEntry['kind'];
    project_id: string | null;
    host: string | null;
    state: string | null;
    detail: Record<string, unknown>;
    summary: string;
  }[];
}

/** Why a host waits for its slot: the agbot's refusal, and the member holding it, if one does. */
export interface SlotWait {
  holder: SlotHolderView | null;
  why: string;
}

/** What a host back in service waits for before its group's next member may start. */
const RETURNING = "it keeps its HA group's slot until it runs its workloads again";

/**
 * The session as shown at `now`: a host's reason is why it was skipped or interrupted, why the
 * agbot refused its slot, which instance group keeps it waiting, or that it holds its slot
 * until it serves again.
 */
export function viewOf(
  record: SessionRecord,
  timeline?: readonly TimelineEntry[],
  slotWaits: ReadonlyMap<string, SlotWait> = new Map(),
  now = new Date(),
): SessionView {
  const { plan, progress } = record;
  const waits = new MaintenanceWorkflow(plan).waitReasons(progress, now);
  const counts = countHosts(plan.hosts.map((host) => hostProgress(progress, host.id).phase));
  return {
    session_id: record.id,
    org: record.org,
    state: record.state,
    paused: record.paused,
    failure: progress.failure ?? null,
    created_by: record.createdBy,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    closed_at: record.closedAt ? new Date(record.closedAt).toISOString() : null,
    actions_at: plan.actionsAt,
    host_action: record.hostAction,
    max_parallel_hosts: plan.maxParallelHosts,
    metadata: record.metadata,
    counts,
    hosts_summary: describeCounts(counts),
    hosts: plan.hosts.map((host) => {
      const state = hostProgress(progress, host.id);
      const wait = state.phase === 'slot' ? slotWaits.get(host.id) : undefined;
      return {
        host: host.id,
        ha_group: host.haGroup,
        phase: state.phase,
        since: state.since,
        reason:
          state.reason ?? wait?.why ?? waits.get(host.id) ?? (state.phase === 'returning' ? RETURNING : null),
        interrupted_in: state.interruptedIn ?? null,
        waiting_for: wait?.holder ?? null,
      };
    }),
    projects: plan.projects.map((project) => ({
      project_id: project.id,
      subscribed: project.subscribed,
      reply_timeout_seconds: project.replyTimeoutSeconds,
      reply_timeout_policy: project.onNoAck,
      instance_ids: plan.instances
        .filter((instance) => instance.project === project.id)
        .map((instance) => instance.id),
      asks: progress.asks
        .filter((ask) => ask.project === project.id)
        .map((ask) => ({
          state: ask.state,
          host: ask.host,
          asked_at: ask.askedAt,
          deadline: ask.deadline,
          answer: ask.answer,
          answered_at: ask.answeredAt ?? null,
          instance_actions: ask.instanceActions ?? null,
        })),
    })),
    ...(timeline
      ? {
          timeline: timeline.map((entry) => ({
            at: entry.at,
            kind: entry.kind,
            project_id: entry.project,
            host: entry.host,
            state: entry.state,
            detail: entry.detail,
            summary: summaryOf(entry),
          })),
        }
      : {}),
  };
}

/**
 * A timeline entry in words, as the CLI and the console print it: the state sent or received,
 * or what a note notes (a pause, a failure, an agent upgrade's end) rather than the word `note`.
 */
export function summaryOf(entry: Pick<TimelineEntry, 'kind' | 'state' | 'detail'>): string {
  const { kind, state, detail } = entry;
  if (kind !== 'note') return state ?? kind;
  const said = [state];
  if (typeof detail.message === 'string') said.push(detail.message);
  else if (typeof detail.failure === 'string') said.push(detail.failure);
  else if (typeof detail.managementPolicy === 'string')
    said.push(`agent upgrade by policy ${detail.managementPolicy}: ${String(detail.status)}`);
  return said.filter((part) => part).join(': ') || kind;
}
