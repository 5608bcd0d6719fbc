/** A stored strategy as clients read it, with the stages its dependencies make. */
import { dependencyStages } from '@careen/contracts';
import { type StoredStrategy } from './strategy-store';
import { type StrategyGroup } from '@careen/contracts';

export interface StrategyView {
  org: string;
  name: string;
  version: number;
  groups: StrategyGroup[];
  stages: string[][];
  created_by: string;
  created_at: string;
}

export function strategyView(stored: StoredStrategy): StrategyView {
  return {
    org: stored.org,
    name: stored.name,
    version: stored.version,
    groups: stored.document.groups,
    stages: dependencyStages(stored.document.groups),
    created_by: stored.createdBy,
    created_at: stored.createdAt.toISOString(),
  };
}
