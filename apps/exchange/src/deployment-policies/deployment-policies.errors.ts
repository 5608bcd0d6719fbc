import { DomainError } from '@careen/contracts';

export enum DeploymentPolicyErrorCode {
  DeploymentPolicyNotFound = 'DEPLOYMENT_POLICY_NOT_FOUND',
}

export const deploymentPolicyNotFound = (org: string, name: string) =>
  new DomainError(
    'not-found',
    DeploymentPolicyErrorCode.DeploymentPolicyNotFound,
    `deployment policy "${org}/${name}" not found`,
  );
