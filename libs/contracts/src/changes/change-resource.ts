export const CHANGE_OPERATIONS = ['created', 'updated', 'deleted'] as const;
export type ChangeOperation = (typeof CHANGE_OPERATIONS)[number];

/** The resources whose changes the exchange publishes. */
export const CHANGE_RESOURCES = [
  'org',
  'user',
  'serviceAccount',
  'apiKey',
  'identityProvider',
  'node',
  'service',
  'deploymentPolicy',
  'haGroup',
  'managementPolicy',
  'managementStatus',
  'agentPackage',
  'window',
  'freeze',
  'budget',
  'gate',
] as const;
export type ChangeResource = (typeof CHANGE_RESOURCES)[number];
