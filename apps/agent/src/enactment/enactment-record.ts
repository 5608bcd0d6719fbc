import { type ManagementStatusValue } from '@careen/contracts';

/** What the agent remembers of one management policy it has taken up (kept in its state file). */
export interface EnactmentRecord {
  nmp: string;
  /** The policy's lastUpdated, as last seen. */
  lastUpdated: string;
  /** The agentUpgradePolicy settings, canonical: new settings are a new enactment, and they tell a conflicting policy from a duplicate. */
  settings: string;
  /** When this agent first saw the policy: the order that settles conflicts, and `now`'s start. */
  firstSeenAt: string;
  target: string | null;
  status: ManagementStatusValue | null;
  /** The random moment picked in [start, start + duration); kept so a restart does not pick again. */
  moment: string | null;
  /** The start of the resume window `moment` was drawn in, once a resume moved it. */
  window?: string;
  /** Downloads of `target` that failed so far: each retry waits longer. */
  downloadFailures?: number;
}
