/**
 * Where the nodes that have not started go when a paused (or stopped) rollout resumes: spread
 * afresh from the moment of the resume, over the window the caller gives or else over what was
 * left of the policy's window when it stopped — never all at once, which is what starting the
 * overdue nodes together would do. When nothing was left, the policy's whole duration again.
 */
import { type AgentUpgradePolicy, type ResumeWindow } from '@careen/contracts';

export interface StoppedRollout {
  agentUpgradePolicy: AgentUpgradePolicy | null;
  /** When the policy was published (its window's start when that is `now`). */
  lastUpdated: Date;
  /** The window of the last resume, if any: it replaced the original one. */
  resumeWindow: ResumeWindow | null;
  /** When it stopped (paused); absent for a policy that was disabled. */
  stoppedAt: Date | null;
}

export function resumeWindow(rollout: StoppedRollout, now: Date, window?: number): ResumeWindow {
  const start = now.toISOString();
  if (window !== undefined) return { start, duration: window };
  const duration = rollout.agentUpgradePolicy?.duration ?? 0;
  const windowEnd = rollout.resumeWindow
    ? Date.parse(rollout.resumeWindow.start) + rollout.resumeWindow.duration * 1000
    : windowStart(rollout) + duration * 1000;
  const left = Math.floor((windowEnd - (rollout.stoppedAt ?? now).getTime()) / 1000);
  return { start, duration: left > 0 ? left : duration };
}

function windowStart(rollout: StoppedRollout): number {
  const start = rollout.agentUpgradePolicy?.start ?? 'now';
  return start === 'now' ? rollout.lastUpdated.getTime() : Date.parse(start);
}
