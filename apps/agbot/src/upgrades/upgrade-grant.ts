import {
  type UpgradeGrantPayload,
  type UpgradeHolderKind,
  type UpgradeReleaseReason,
} from '@careen/contracts';

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
  /** Set while the holder failed and is not healthy again (docs/architecture.md, invariant 1). */
  haltedAt: Date | null;
  haltError: string | null;
}

/** Which slot: a node holds at most one of each kind. */
export interface GrantKey {
  org: string;
  node: string;
  kind: UpgradeHolderKind;
}

/** A slot given back, why and when. */
export interface ReleasedGrant extends UpgradeGrant {
  reason: UpgradeReleaseReason;
  releasedAt: Date;
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
