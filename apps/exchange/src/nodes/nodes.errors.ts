import { DomainError } from '@careen/contracts';

export enum NodeErrorCode {
  NodeNotFound = 'NODE_NOT_FOUND',
  NotThisNode = 'NOT_THIS_NODE',
  NotNodeOwner = 'NOT_NODE_OWNER',
  NodeOnly = 'NODE_ONLY',
}

export const nodeNotFound = (org: string, id: string) =>
  new DomainError('not-found', NodeErrorCode.NodeNotFound, `node "${org}/${id}" not found`);
export const notThisNode = (action: string) =>
  new DomainError('forbidden', NodeErrorCode.NotThisNode, `a node may ${action} only itself`);
export const notNodeOwner = (org: string, id: string) =>
  new DomainError(
    'forbidden',
    NodeErrorCode.NotNodeOwner,
    `node "${org}/${id}" belongs to another user; only its owner or an admin may change it`,
  );
export const nodeOnly = (message: string) => new DomainError('forbidden', NodeErrorCode.NodeOnly, message);
