/**
 * What the planner believes about one member, from what it reported: serving, on target, due
 * to move. Also builds a member from a mirrored node. Never decides what to do.
 */
import { type MirroredNode } from '../mirror/mirrored-node';
import { type ReportedWorkload, type RolloutMember } from './rollout.types';

export const RUNNING = 'running';

/** Running the service now, at any version; a stale report does not count. */
export function isServing(member: RolloutMember): boolean {
  return member.online && member.actual?.state === RUNNING;
}

/** Asked for its target and reporting that version running. */
export function isOnTarget(member: RolloutMember): boolean {
  return (
    member.desiredVersion === member.targetVersion &&
    member.online &&
    member.actual?.state === RUNNING &&
    member.actual.version === member.targetVersion
  );
}

/** Reports `version` running (whatever it was asked). */
export function runs(member: RolloutMember, version: string): boolean {
  return member.online && member.actual?.state === RUNNING && member.actual.version === version;
}

/** Holds an older assignment that has to change version (an upgrade, or a downgrade). */
export function isDueToMove(member: RolloutMember): boolean {
  return member.desiredVersion !== null && member.desiredVersion !== member.targetVersion;
}

/** Was asked for its target but does not run it yet. */
export function isSettling(member: RolloutMember): boolean {
  return member.desiredVersion === member.targetVersion && !runs(member, member.targetVersion);
}

/** Members that stop serving when moved go last: the ones not serving anyway move first. */
export function moveOrder(a: RolloutMember, b: RolloutMember): number {
  const serving = Number(isServing(a)) - Number(isServing(b));
  return serving !== 0 ? serving : a.node < b.node ? -1 : a.node > b.node ? 1 : 0;
}

/** Whether a heartbeat at `lastHeartbeat` is recent enough at `now`. */
export function isOnline(lastHeartbeat: string | undefined, now: Date, timeoutMs: number): boolean {
  if (!lastHeartbeat) return false;
  const at = new Date(lastHeartbeat).getTime();
  return !Number.isNaN(at) && now.getTime() - at <= timeoutMs;
}

export interface MemberFromNodeInput {
  readonly deploymentPolicy: string;
  readonly service: { readonly org: string; readonly url: string };
  readonly desiredVersion: string | null;
  readonly targetVersion: string;
  readonly now: Date;
  /** A node whose last heartbeat is older than this is offline. */
  readonly heartbeatTimeoutMs: number;
}

/**
 * A member from a mirrored node: its reported workload for the policy (matched by policy name,
 * else by service), its group and whether it is online.
 */
export function memberFromNode(node: MirroredNode, input: MemberFromNodeInput): RolloutMember {
  const reported = node.status?.workloads ?? [];
  const sameService = (workload: (typeof reported)[number]) =>
    workload.service.org === input.service.org && workload.service.url === input.service.url;
  const workload =
    reported.find(
      (candidate) => candidate.deploymentPolicy === input.deploymentPolicy && sameService(candidate),
    ) ?? reported.find((candidate) => candidate.deploymentPolicy === undefined && sameService(candidate));
  const actual: ReportedWorkload | null = workload
    ? { version: workload.service.version, state: workload.state ?? RUNNING }
    : null;
  return {
    node: node.id,
    haGroup: node.haGroup,
    desiredVersion: input.desiredVersion,
    targetVersion: input.targetVersion,
    actual,
    online: isOnline(node.status?.lastHeartbeat, input.now, input.heartbeatTimeoutMs),
  };
}
