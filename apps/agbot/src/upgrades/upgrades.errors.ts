import { DomainError } from '@careen/contracts';
import { type UpgradeGrant } from './upgrade-grant';

export enum UpgradeErrorCode {
  NodeNotFound = 'UPGRADE_NODE_NOT_FOUND',
  NotThisNode = 'UPGRADE_NOT_THIS_NODE',
  GroupBusy = 'UPGRADE_GROUP_BUSY',
  NotHeld = 'UPGRADE_NOT_HELD',
}

export const upgradeNodeNotFound = (org: string, node: string) =>
  new DomainError(
    'not-found',
    UpgradeErrorCode.NodeNotFound,
    `node "${org}/${node}" is not known to the agbot`,
    {
      code: UpgradeErrorCode.NodeNotFound,
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

/** The 409 agents are built against: `details` is exactly `{haGroup, holder}`. */
export const groupBusy = (haGroup: string | null, holder: UpgradeGrant) =>
  new DomainError(
    'conflict',
    UpgradeErrorCode.GroupBusy,
    `HA group "${haGroup}" is busy: node "${holder.node}" holds its upgrade slot until ${holder.leaseExpiresAt.toISOString()} unless renewed`,
    {
      haGroup,
      holder: {
        node: holder.node,
        managementPolicy: holder.managementPolicy,
        grantedAt: holder.grantedAt.toISOString(),
        leaseExpiresAt: holder.leaseExpiresAt.toISOString(),
      },
    },
  );

export const grantNotHeld = (org: string, node: string, managementPolicy: string) =>
  new DomainError(
    'not-found',
    UpgradeErrorCode.NotHeld,
    `node "${org}/${node}" holds no upgrade grant for management policy "${managementPolicy}" to renew`,
    { code: UpgradeErrorCode.NotHeld, org, node, managementPolicy },
  );
