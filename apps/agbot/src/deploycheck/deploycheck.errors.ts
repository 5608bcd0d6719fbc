import { DomainError } from '@careen/contracts';

export enum DeployCheckErrorCode {
  DeploymentPolicyNotFound = 'DEPLOYMENT_POLICY_NOT_FOUND',
  ServiceNotFound = 'SERVICE_NOT_FOUND',
  NodeNotFound = 'NODE_NOT_FOUND',
  HaGroupNotFound = 'HA_GROUP_NOT_FOUND',
  InvalidCheck = 'INVALID_DEPLOY_CHECK',
}

export const deploymentPolicyNotFound = (org: string, name: string) =>
  new DomainError(
    'not-found',
    DeployCheckErrorCode.DeploymentPolicyNotFound,
    `deployment policy "${org}/${name}" not found`,
  );

export const serviceNotFound = (org: string, url: string, version?: string) =>
  new DomainError(
    'not-found',
    DeployCheckErrorCode.ServiceNotFound,
    `service "${org}/${url}${version ? `@${version}` : ''}" not found`,
  );

export const nodeNotFound = (org: string, id: string) =>
  new DomainError('not-found', DeployCheckErrorCode.NodeNotFound, `node "${org}/${id}" not found`);

export const haGroupNotFound = (org: string, name: string) =>
  new DomainError(
    'not-found',
    DeployCheckErrorCode.HaGroupNotFound,
    `HA group "${org}/${name}" has no members`,
  );

export const invalidCheck = (message: string) =>
  new DomainError('invalid', DeployCheckErrorCode.InvalidCheck, message);
