/** A maintenance session as stored: the request's settings, the plan and the workflow's progress. */
import { type SessionState } from '@careen/contracts';
import { type SessionPlan, type SessionProgress, type WorkflowCommand } from '../workflow/workflow.types';

export const HOST_ACTION_KINDS = ['manual', 'agent-upgrade', 'external', 'simulated'] as const;
export type HostActionKind = (typeof HOST_ACTION_KINDS)[number];

/** What is done to a host once it is empty and out of service. */
export interface HostActionSpec {
  kind: HostActionKind;
  /** `simulated`: how long the pause lasts. */
  seconds?: number;
  /** `agent-upgrade`: the agent version the host is rolled to. */
  version?: string;
}

export interface SessionRecord {
  id: string;
  org: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  state: SessionState;
  paused: boolean;
  hostAction: HostActionSpec;
  metadata: Record<string, unknown>;
  plan: SessionPlan;
  progress: SessionProgress;
  capabilityKey: string;
  closedAt: Date | null;
}

/** A command a step gave that is carried out outside the database: the driver's work. */
export type DriverCommand = Exclude<WorkflowCommand, { kind: 'tell-project' } | { kind: 'tell-admin' }>;

export interface PendingCommand {
  id: string;
  sessionId: string;
  host: string | null;
  command: DriverCommand;
  attempts: number;
  /** What an earlier attempt kept of what it found, before it acted. */
  result: Record<string, unknown> | null;
}

export const TIMELINE_KINDS = ['sent', 'received', 'refused', 'note'] as const;

export interface TimelineEntry {
  at: string;
  kind: (typeof TIMELINE_KINDS)[number];
  project: string | null;
  host: string | null;
  state: string | null;
  detail: Record<string, unknown>;
}

export const FINISHED_STATES: readonly SessionState[] = ['MAINTENANCE_DONE', 'MAINTENANCE_FAILED'];
