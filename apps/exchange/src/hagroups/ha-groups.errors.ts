import { DomainError } from '@careen/contracts';

export enum HaGroupErrorCode {
  GroupExists = 'HA_GROUP_EXISTS',
  GroupNotFound = 'HA_GROUP_NOT_FOUND',
  NodeNotFound = 'HA_GROUP_NODE_NOT_FOUND',
  NodeInAnotherGroup = 'NODE_IN_ANOTHER_HA_GROUP',
}

export const haGroupExists = (org: string, name: string) =>
  new DomainError('conflict', HaGroupErrorCode.GroupExists, `HA group "${org}/${name}" already exists`);
export const haGroupNotFound = (org: string, name: string) =>
  new DomainError('not-found', HaGroupErrorCode.GroupNotFound, `HA group "${org}/${name}" not found`);
export const memberNotFound = (org: string, nodes: string[]) =>
  new DomainError(
    'not-found',
    HaGroupErrorCode.NodeNotFound,
    `no such node in org "${org}": ${nodes.join(', ')}`,
    {
      nodes,
    },
  );
export const nodeInAnotherGroup = (node: string, group: string) =>
  new DomainError(
    'conflict',
    HaGroupErrorCode.NodeInAnotherGroup,
    `node "${node}" is already in HA group "${group}"; a node may be in one HA group only`,
    { node, group },
  );
