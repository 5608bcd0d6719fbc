/** A session as its routes show it: Doctor's snake_case, per-host and per-project progress, the timeline. */
import {
  type InstanceAction,
  type RepliedState,
  type ReplyTimeoutPolicy,
  type SessionState,
} from '@careen/contracts';
import { type AskAnswer, type HostPhase } from '../workflow/workflow.types';
import { type SessionRecord, type TimelineEntry } from './session-record';

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
  hosts: { host: string; ha_group: string | null; phase: HostPhase; since: string; reason: string | null }[];
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
  }[];
}

export function viewOf(record: SessionRecord, timeline?: readonly TimelineEntry[]): SessionView {
  const { plan, progress } = record;
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
    hosts: plan.hosts.map((host) => {
      const state = progress.hosts[host.id]!;
      return {
        host: host.id,
        ha_group: host.haGroup,
        phase: state.phase,
        since: state.since,
        reason: state.reason ?? null,
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
          })),
        }
      : {}),
  };
}
