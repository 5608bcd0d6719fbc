/** A single-node upgrade as the store keeps it, asked for `mon01` to go from 1.0.0 to 2.0.0. */
import { type UpgradeRecord } from '../upgrades/upgrade-store';

export function upgradeRecord(
  id: string,
  createdAt: Date,
  overrides: Partial<UpgradeRecord> = {},
): UpgradeRecord {
  return {
    id,
    org: 'acme',
    node_id: 'mon01',
    from_version: '1.0.0',
    to_version: '2.0.0',
    strategy: 'tarball',
    location: null,
    allow_downgrade: false,
    state: 'pending',
    status: null,
    error: null,
    policy: `upgrade-${id.slice(0, 8)}-mon01`,
    created_by: 'acme/admin',
    created_at: createdAt,
    updated_at: createdAt,
    started_at: null,
    finished_at: null,
    ...overrides,
  };
}
