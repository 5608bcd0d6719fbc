/** A history row as the upgrade routes answer it: as stored, and whether it goes down. */
import { isDowngrade } from './upgrade-states';
import { type UpgradeRecord } from './upgrade-store';

export interface UpgradeView extends UpgradeRecord {
  /** `to_version` is below `from_version`: the node was taken back to an older agent. */
  rollback: boolean;
}

export function upgradeView(record: UpgradeRecord): UpgradeView {
  return { ...record, rollback: isDowngrade(record.from_version, record.to_version) };
}
