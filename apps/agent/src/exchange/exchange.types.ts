/** The exchange's answers as the agent reads them (only the fields it relies on). */
import { type ManagementStatusValue } from '@careen/contracts';
import { type Property } from '@careen/policy';

export interface AgentUpgradePolicy {
  atLeastVersion: string;
  start: string;
  duration: number;
  action: 'install' | 'download';
}

export interface ManagementPolicy {
  org: string;
  name: string;
  constraints: string[];
  properties: Property[];
  patterns: string[];
  nodes: string[];
  enabled: boolean;
  agentUpgradePolicy: AgentUpgradePolicy | null;
  lastUpdated: string;
  /** The rollout is paused: enactments that have not started wait. */
  paused?: boolean;
  /** Set by the last resume: enactments that had not started pick a moment in it. */
  resumeWindow?: { start: string; duration: number } | null;
}

export interface AgentPackage {
  version: string;
  sha256: string;
  size: number;
  signature?: string;
}

export interface ServiceRef {
  org: string;
  url: string;
  version: string;
}

export interface DesiredWorkload {
  deploymentPolicy: string;
  service: ServiceRef;
}

export interface ActualWorkload {
  deploymentPolicy?: string;
  service: ServiceRef;
  state?: string;
}

export interface AgentVersionReport {
  package: string;
  failed: string | null;
  upgradeStart: string | null;
  upgradeEnd: string | null;
}

export interface NodeView {
  org: string;
  id: string;
  pattern: string | null;
  policy: { properties: Property[]; constraints: string[] };
  haGroup: string | null;
  updatedAt: string;
}

export interface Change {
  id: number;
  org: string;
  resource: string;
  resourceId: string;
  operation: 'created' | 'updated' | 'deleted';
  changedAt: string;
  data?: Record<string, unknown>;
}

export interface ChangePage {
  changes: Change[];
  lastId: number;
}

export interface ManagementStatusReport {
  status: ManagementStatusValue;
  version?: string;
  /** The version the node ran when the attempt began. */
  fromVersion?: string;
  startTime?: string;
  endTime?: string;
  error?: string;
}
