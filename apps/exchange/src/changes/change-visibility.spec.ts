import { type Principal } from '@careen/auth';
import { type ChangeResource } from '@careen/contracts';
import { type ChangeRecord } from './change-record';
import { isVisibleTo } from './change-visibility';

const change = (org: string, resource: ChangeResource, resourceId: string): ChangeRecord => ({
  id: 1,
  org,
  resource,
  resourceId,
  operation: 'updated',
  changedAt: '2026-01-01T00:00:00.000Z',
});

const admin: Principal = { kind: 'user', org: 'acme', username: 'ada', role: 'orgAdmin' };
const node: Principal = { kind: 'node', org: 'acme', node: 'edge-1' };

describe('change visibility', () => {
  it.each([
    ['a user', admin, change('acme', 'user', 'bob'), true],
    ['a user', admin, change('beta', 'org', 'beta'), false],
    ['a node', node, change('acme', 'node', 'edge-1'), true],
    ['a node', node, change('acme', 'node', 'edge-2'), false],
    ['a node', node, change('acme', 'managementStatus', 'edge-1'), true],
    ['a node', node, change('acme', 'managementStatus', 'edge-10'), false],
    ['a node', node, change('acme', 'user', 'bob'), false],
    ['a node', node, change('acme', 'managementPolicy', 'nmp-a'), true],
    ['a node', node, change('acme', 'deploymentPolicy', 'web'), true],
    ['a node', node, change('beta', 'managementPolicy', 'nmp-b'), false],
    ['a node', node, change('root', 'agentPackage', '1_2_3'), true],
  ])('%s sees %o: %s', (_who, principal, record, visible) => {
    expect(isVisibleTo(principal, 'acme', record)).toBe(visible);
  });
});
