/**
 * The exchange's answers as the agent reads them: the generated client's types, and where the
 * agent holds an answer to a contract of its own (a change's data, a policy), that contract.
 */
import { type Exchange } from '@careen/api-client';
import { type ChangeContractOf, type ChangePayload, type ManagementStatusValue } from '@careen/contracts';

/** A management policy: the fields the agent relies on, as the change feed's contract states them. */
export type ManagementPolicy = ChangeContractOf<'managementPolicy'>;

type Schemas = Exchange.components['schemas'];

/** The fields of a package the agent relies on. */
export type AgentPackage = Pick<Schemas['AgentPackageResponse'], 'version' | 'sha256' | 'size' | 'signature'>;

export type DesiredWorkload = Schemas['NodeDesiredWorkloadResponse'];

export type ActualWorkload = Schemas['NodeActualWorkloadResponse'];

export interface AgentVersionReport {
  package: string;
  failed: string | null;
  upgradeStart: string | null;
  upgradeEnd: string | null;
}

export type NodeView = Schemas['NodeResponse'];

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
