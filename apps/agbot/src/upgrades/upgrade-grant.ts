import { type UpgradeGrantPayload, type UpgradeHolderKind } from '@careen/contracts';

/** One held slot of an upgrade semaphore. */
export interface UpgradeGrant {
  org: string;
  node: string;
  kind: UpgradeHolderKind;
  /** The HA group whose slot is held; null for a node outside any group. */
  haGroup: string | null;
  managementPolicy: string | null;
  grantedAt: Date;
  /** Meaningless while halted: a halted slot has no lease end. */
  leaseExpiresAt: Date;
  /** Set while the holder failed and is not healthy again (DESIGN §8 invariant 1). */
  haltedAt: Date | null;
  haltError: string | null;
}

export function grantPayload(grant: UpgradeGrant): UpgradeGrantPayload {
  return {
    org: grant.org,
    node: grant.node,
    haGroup: grant.haGroup,
    holder: grant.kind,
    managementPolicy: grant.managementPolicy,
    grantedAt: grant.grantedAt.toISOString(),
    leaseExpiresAt: grant.leaseExpiresAt.toISOString(),
  };
}
