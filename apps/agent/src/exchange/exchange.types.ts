/** The exchange's answers as the agent reads them (only the fields it relies on). */
import { type ChangeContractOf, type ChangePayload, type ManagementStatusValue } from '@careen/contracts';
import { type Property } from '@careen/policy';

/** A management policy: the fields the agent relies on, as the change feed's contract states them. */
export type ManagementPolicy = ChangeContractOf<'managementPolicy'>;

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

/** A change as the feed serves it: its place in commit order, and the change. */
export type FeedChange = ChangePayload & { id: number };

export interface ChangePage {
  changes: FeedChange[];
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
