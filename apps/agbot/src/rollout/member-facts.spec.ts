import { type MirroredNode } from '../mirror/mirrored-node';
import { isOnline, memberFromNode } from './member-facts';

const NOW = new Date('2026-11-20T12:00:00Z');

function node(status: MirroredNode['status'], haGroup: string | null = 'g'): MirroredNode {
  return {
    org: 'acme',
    id: 'edge-1',
    pattern: null,
    policy: { properties: [], constraints: [] },
    rack: null,
    haGroup,
    schedulable: true,
    maintenance: null,
    status,
  };
}

const input = {
  deploymentPolicy: 'web',
  service: { org: 'acme', url: 'acme.web' },
  desiredVersion: '1.0.0',
  targetVersion: '2.0.0',
  now: NOW,
  heartbeatTimeoutMs: 60_000,
};

describe('memberFromNode', () => {
  it('reads the workload reported for the policy, and whether the node is online', () => {
    const member = memberFromNode(
      node({
        lastHeartbeat: '2026-11-20T11:59:30Z',
        workloads: [
          {
            deploymentPolicy: 'other',
            service: { org: 'acme', url: 'acme.web', version: '9.0.0' },
            state: 'running',
          },
          {
            deploymentPolicy: 'web',
            service: { org: 'acme', url: 'acme.web', version: '1.0.0' },
            state: 'failed',
          },
        ],
      }),
      input,
    );
    expect(member).toEqual({
      node: 'edge-1',
      haGroup: 'g',
      desiredVersion: '1.0.0',
      targetVersion: '2.0.0',
      actual: { version: '1.0.0', state: 'failed' },
      online: true,
    });
  });

  it('falls back to a workload of the same service reported without a policy, running unless said otherwise', () => {
    const member = memberFromNode(
      node({
        lastHeartbeat: '2026-11-20T11:00:00Z',
        workloads: [{ service: { org: 'acme', url: 'acme.web', version: '1.0.0' } }],
      }),
      input,
    );
    expect(member.actual).toEqual({ version: '1.0.0', state: 'running' });
    expect(member.online).toBe(false);
  });

  it('has nothing to say of a node that reported nothing', () => {
    expect(memberFromNode(node(null, null), input)).toMatchObject({
      actual: null,
      online: false,
      haGroup: null,
    });
  });
});

describe('isOnline', () => {
  it('needs a readable heartbeat within the timeout', () => {
    expect(isOnline('2026-11-20T11:59:00Z', NOW, 60_000)).toBe(true);
    expect(isOnline('2026-11-20T11:58:59Z', NOW, 60_000)).toBe(false);
    expect(isOnline(undefined, NOW, 60_000)).toBe(false);
    expect(isOnline('garbage', NOW, 60_000)).toBe(false);
  });
});
