import { DomainError } from '@careen/contracts';
import { type GateRefusal } from '../disruption/disruption-gate';
import { type UpgradeGrant } from './upgrade-grant';

export enum UpgradeErrorCode {
  NodeNotFound = 'UPGRADE_NODE_NOT_FOUND',
  NotThisNode = 'UPGRADE_NOT_THIS_NODE',
  GroupBusy = 'UPGRADE_GROUP_BUSY',
  NotHeld = 'UPGRADE_NOT_HELD',
  PolicyStopped = 'UPGRADE_POLICY_STOPPED',
  GroupHalted = 'UPGRADE_GROUP_HALTED',
  GroupNotFound = 'UPGRADE_GROUP_NOT_FOUND',
  NotAMember = 'UPGRADE_NOT_A_MEMBER',
  Gated = 'DISRUPTION_GATED',
}

/**
 * The HA group had room, and a window, freeze, gate, soak or budget says no: `details` names the reason, the
 * control, and when it may change (`retryAt`, or the budget's holders).
 */
export const disruptionGated = (org: string, node: string, refusal: GateRefusal) =>
  new DomainError(
    'conflict',
    UpgradeErrorCode.Gated,
    `node "${org}/${node}" may not be disrupted now: ${refusal.message}`,
    {
      node,
      ...gateDetails(refusal),
    },
  );

export function gateDetails(refusal: GateRefusal) {
  switch (refusal.reason) {
    case 'freeze':
    case 'busy':
      return { reason: refusal.reason, control: refusal.control, retryAt: refusal.until.toISOString() };
    case 'soak':
      return {
        reason: refusal.reason,
        control: refusal.control,
        retryAt: refusal.until.toISOString(),
        soaking: refusal.node,
      };
    case 'outside-window':
      return {
        reason: refusal.reason,
        control: refusal.control,
        retryAt: refusal.opensAt?.toISOString() ?? null,
      };
    case 'gate':
    case 'unreadable':
      return { reason: refusal.reason, control: refusal.control };
    case 'budget':
      return {
        reason: refusal.reason,
        control: refusal.control,
        allowed: refusal.allowed,
        holders: refusal.holders,
      };
  }
}

export const upgradeNodeNotFound = (org: string, node: string) =>
  new DomainError(
    'not-found',
    UpgradeErrorCode.NodeNotFound,
    `node "${org}/${node}" is not known to the agbot`,
    {
      org,
      node,
    },
  );

export const notThisNode = () =>
  new DomainError(
    'forbidden',
    UpgradeErrorCode.NotThisNode,
    'a node may ask for or release only its own upgrade grant',
  );

/**
 * The 409 agents are built against: `details` is `{haGroup, holder}`, and the holder says
 * whether it halted the group (failed and not healthy again) and why.
 */
export const groupBusy = (haGroup: string | null, holder: UpgradeGrant) =>
  new DomainError(
    'conflict',
    UpgradeErrorCode.GroupBusy,
    holder.haltedAt
      ? `HA group "${haGroup}" is halted: node "${holder.node}" failed its step and is not healthy again (${holder.haltError ?? 'no error reported'}); no member starts until it reports healthy or an admin resets it`
      : `HA group "${haGroup}" is busy: node "${holder.node}" holds its ${holder.kind} slot until ${holder.leaseExpiresAt.toISOString()} unless renewed`,
    { haGroup, holder: holderDetails(holder) },
  );

export function holderDetails(holder: UpgradeGrant) {
  return {
    node: holder.node,
    kind: holder.kind,
    managementPolicy: holder.managementPolicy,
    grantedAt: holder.grantedAt.toISOString(),
    leaseExpiresAt: holder.haltedAt ? null : holder.leaseExpiresAt.toISOString(),
    halted: holder.haltedAt !== null,
    error: holder.haltError,
  };
}

export const policyStopped = (org: string, managementPolicy: string) =>
  new DomainError(
    'conflict',
    UpgradeErrorCode.PolicyStopped,
    `management policy "${org}/${managementPolicy}" is disabled or paused: no node starts a new step of it`,
    { org, managementPolicy },
  );

export const groupHalted = (org: string, holder: UpgradeGrant) =>
  new DomainError(
    'conflict',
    UpgradeErrorCode.GroupHalted,
    `node "${org}/${holder.node}" failed its upgrade and halts HA group "${holder.haGroup}": its slot is given back when it reports healthy, an admin resets its status for management policy "${holder.managementPolicy}", or an admin resets the group's halt`,
    { haGroup: holder.haGroup, holder: holderDetails(holder) },
  );

export const grantNotHeld = (org: string, node: string, managementPolicy: string) =>
  new DomainError(
    'not-found',
    UpgradeErrorCode.NotHeld,
    `node "${org}/${node}" holds no upgrade grant for management policy "${managementPolicy}" to renew`,
    { org, node, managementPolicy },
  );

export const upgradeGroupNotFound = (org: string, haGroup: string) =>
  new DomainError(
    'not-found',
    UpgradeErrorCode.GroupNotFound,
    `HA group "${org}/${haGroup}" has no member known to the agbot`,
    { org, haGroup },
  );

export const notAMember = (org: string, haGroup: string, node: string, actualGroup: string | null) =>
  new DomainError(
    'not-found',
    UpgradeErrorCode.NotAMember,
    actualGroup
      ? `node "${org}/${node}" is not a member of HA group "${haGroup}" but of "${actualGroup}"`
      : `node "${org}/${node}" is not a member of HA group "${haGroup}" (nor of any other)`,
    { org, haGroup, node, memberOf: actualGroup },
  );
