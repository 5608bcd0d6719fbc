import { type ChangeOperation, type ChangeResource } from '@careen/contracts';

/** One change as the feed serves it; `id` is its place in commit order. */
export interface ChangeRecord {
  id: number;
  org: string;
  resource: ChangeResource;
  resourceId: string;
  operation: ChangeOperation;
  changedAt: string;
  byNode?: boolean;
  event?: string;
  data?: Record<string, unknown>;
}

/** Resources that concern every org (agent packages are public). */
export const GLOBAL_RESOURCES: readonly ChangeResource[] = ['agentPackage'];
