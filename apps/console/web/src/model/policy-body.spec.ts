import { type ReadPolicy, replacementBody, selectsEveryNode } from './policy-body';

const policy: ReadPolicy = {
  label: 'Agent 2.0',
  description: '',
  constraints: ['region == "eu"'],
  properties: [],
  patterns: [],
  nodes: [],
  enabled: false,
  agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 600, action: 'install' },
  failureThreshold: null,
};

describe('enabling and disabling a management policy', () => {
  it('knows a policy that selects every node, as the exchange does', () => {
    expect(selectsEveryNode(policy)).toBe(false);
    expect(selectsEveryNode({ ...policy, constraints: [] })).toBe(true);
    expect(selectsEveryNode({ ...policy, patterns: [' * '] })).toBe(true);
    expect(selectsEveryNode({ ...policy, constraints: [], nodes: ['edge-1'] })).toBe(false);
  });

  it('sends the policy back whole with only enabled changed, and allowDisruptive only when confirmed and enabling', () => {
    expect(replacementBody(policy, true, false)).toEqual({
      label: 'Agent 2.0',
      description: '',
      constraints: ['region == "eu"'],
      properties: [],
      patterns: [],
      nodes: [],
      enabled: true,
      agentUpgradePolicy: policy.agentUpgradePolicy,
    });
    expect(replacementBody({ ...policy, failureThreshold: 3, agentUpgradePolicy: null }, true, true)).toEqual(
      {
        label: 'Agent 2.0',
        description: '',
        constraints: ['region == "eu"'],
        properties: [],
        patterns: [],
        nodes: [],
        enabled: true,
        failureThreshold: 3,
        allowDisruptive: true,
      },
    );
    expect(replacementBody(policy, false, true)).not.toHaveProperty('allowDisruptive');
  });
});
