/**
 * The agent-upgrade part of a management policy (docs/domain.md, Node management policies and
 * agent upgrades), as the exchange stores it and the
 * agents read it from the change feed and the policy list.
 */
export const UPGRADE_ACTIONS = ['install', 'download'] as const;
export type UpgradeAction = (typeof UPGRADE_ACTIONS)[number];

export interface AgentUpgradePolicy {
  /** A semver, or `current`: the newest package, and keep following new ones. */
  atLeastVersion: string;
  /** RFC3339 UTC, or `now`. */
  start: string;
  /** Seconds: each agent picks a uniformly random moment in [start, start + duration). */
  duration: number;
  action: UpgradeAction;
  /**
   * A URL the agents fetch the package's bytes from instead of the exchange's copy (a mirror
   * near them); what they fetch is checked against the package's size, sha256 and signature as
   * the exchange records them, all the same.
   */
  location?: string;
  /**
   * The version is exact, not a floor: a node running a higher one goes down to it (a rollback).
   * Set only with an exact `atLeastVersion`, never `current`; absent, agents only move up.
   */
  allowDowngrade?: boolean;
}

/** The spread, set by a resume, for the nodes that had not started: [start, start + duration). */
export interface ResumeWindow {
  start: string;
  duration: number;
}
