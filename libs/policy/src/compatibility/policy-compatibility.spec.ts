import { builtinNodeProperties } from '../properties/builtin-properties.constants';
import { type Property } from '../properties/property.types';
import { compileConstraints, satisfies, unsatisfiedConstraints } from './compiled-constraints';
import { compatible, compilePolicy, isCompatible, type PolicyParty } from './policy-compatibility';

// A node and a deployment policy in the style of Open Horizon's policy examples: each side
// states facts about itself and asks something of the other.
const testNode: PolicyParty = {
  name: 'node edge-1',
  properties: [
    { name: 'purpose', value: 'network-testing' },
    { name: 'group', value: 'bluenode' },
    { name: 'openhorizon.arch', value: 'amd64' },
    { name: 'openhorizon.cpus', value: 4 },
  ],
  constraints: [
    'iame2edev == true',
    'NONS == false || NOGPS == true || NOLOC == true || NOPWS == true || NOHELLO == true',
  ],
};

const networkTestingDeployment: PolicyParty = {
  name: 'deployment policy netspeed',
  properties: [
    { name: 'iame2edev', value: true },
    { name: 'NOGPS', value: true },
  ],
  constraints: ['purpose == network-testing', 'openhorizon.arch == amd64 OR openhorizon.arch == arm64'],
};

describe('compatible', () => {
  it('holds when each side satisfies the constraints of the other', () => {
    expect(compatible(testNode, networkTestingDeployment)).toEqual({ compatible: true, failures: [] });
    expect(compatible(networkTestingDeployment, testNode)).toEqual({ compatible: true, failures: [] });
  });

  it('names the side whose constraint failed when the node does not meet the policy', () => {
    const other = {
      ...testNode,
      properties: [
        { name: 'purpose', value: 'video' },
        { name: 'openhorizon.arch', value: 'amd64' },
      ],
    };
    expect(compatible(other, networkTestingDeployment)).toEqual({
      compatible: false,
      failures: [
        {
          side: 'b',
          index: 0,
          constraint: 'purpose == network-testing',
          reason: 'unsatisfied',
          missingProperties: [],
          message:
            'constraint 0 of deployment policy netspeed "purpose == network-testing" is not satisfied by node edge-1',
        },
      ],
    });
  });

  it('is bidirectional: a policy whose properties do not meet the node is refused too', () => {
    const silentDeployment = { ...networkTestingDeployment, properties: [] };
    const result = compatible(testNode, silentDeployment);
    expect(result.compatible).toBe(false);
    expect(
      result.failures.map((failure) => [failure.side, failure.index, failure.missingProperties]),
    ).toEqual([
      ['a', 0, ['iame2edev']],
      ['a', 1, ['NONS', 'NOGPS', 'NOLOC', 'NOPWS', 'NOHELLO']],
    ]);
    expect(result.failures[0]?.message).toBe(
      'constraint 0 of node edge-1 "iame2edev == true" is not satisfied by deployment policy netspeed, which has no property iame2edev',
    );
  });

  it('lists the failures of both sides together', () => {
    const result = compatible(
      { constraints: ['zone == eu'], properties: [] },
      { constraints: ['gpu'], properties: [] },
    );
    expect(result.failures.map((failure) => failure.message)).toEqual([
      'constraint 0 of the first policy "zone == eu" is not satisfied by the second policy, which has no property zone',
      'constraint 0 of the second policy "gpu" is not satisfied by the first policy, which has no property gpu',
    ]);
  });

  it('treats missing constraints and properties as nothing asked and nothing offered', () => {
    expect(compatible({}, {})).toEqual({ compatible: true, failures: [] });
    expect(compatible({ constraints: [] }, { properties: [{ name: 'a', value: 1 }] }).compatible).toBe(true);
  });

  it('refuses, without throwing, a policy whose constraint does not parse', () => {
    const broken = {
      name: 'management policy broken',
      properties: networkTestingDeployment.properties,
      constraints: ['careen.os =='],
    };
    const result = compatible(broken, testNode);
    expect(result.compatible).toBe(false);
    expect(result.failures).toEqual([
      expect.objectContaining({
        side: 'a',
        index: 0,
        reason: 'invalid',
        message:
          'constraint 0 of management policy broken is invalid: expected a value after "==" at position 12, found end of input',
      }),
    ]);
  });

  it('selects nodes for a management policy by architecture and agent version range', () => {
    const upgradeToV3: PolicyParty = {
      name: 'management policy agent-3',
      constraints: [
        'careen.arch == amd64, arm64',
        'careen.agentVersion in [2.0.0,3.0.0)',
        'careen.memory >= 1024',
      ],
      properties: [{ name: 'maintenance.window', value: 'night' }],
    };
    const node = (
      arch: string,
      agentVersion: string,
      memoryMb: number,
      constraints: string[] = [],
    ): PolicyParty => ({
      properties: builtinNodeProperties({ arch, cpus: 2, memoryMb, os: 'linux', agentVersion }),
      constraints,
    });
    expect(compatible(node('amd64', '2.31.0', 2048), upgradeToV3).compatible).toBe(true);
    expect(compatible(node('arm64', '2.9.10', 1024), upgradeToV3).compatible).toBe(true);
    expect(compatible(node('riscv64', '2.31.0', 2048), upgradeToV3).compatible).toBe(false);
    expect(compatible(node('amd64', '3.0.0', 2048), upgradeToV3).compatible).toBe(false);
    expect(compatible(node('amd64', '1.99', 2048), upgradeToV3).compatible).toBe(false);
    expect(compatible(node('amd64', '2.31.0', 512), upgradeToV3).compatible).toBe(false);
    // The node may in turn refuse policies that do not promise a night-time window.
    expect(
      compatible(node('amd64', '2.31.0', 2048, ['maintenance.window == night']), upgradeToV3).compatible,
    ).toBe(true);
    expect(
      compatible(node('amd64', '2.31.0', 2048, ['maintenance.window == day']), upgradeToV3).compatible,
    ).toBe(false);
  });
});

describe('satisfies', () => {
  const properties: Property[] = [
    { name: 'openhorizon.arch', value: 'amd64' },
    { name: 'version', type: 'version', value: '1.4.2' },
  ];

  it('ANDs the constraint strings', () => {
    expect(satisfies(['openhorizon.arch == amd64'], properties)).toBe(true);
    expect(satisfies(['openhorizon.arch == amd64', 'version in [1.0.0,2.0.0)'], properties)).toBe(true);
    expect(satisfies(['openhorizon.arch == amd64', 'version in [2.0.0,INFINITY)'], properties)).toBe(false);
    expect(satisfies([], properties)).toBe(true);
  });

  it('is false for a constraint that does not parse, and says why', () => {
    expect(satisfies(['openhorizon.arch == amd64', 'version in [2.0,1.0)'], properties)).toBe(false);
    expect(unsatisfiedConstraints(['openhorizon.arch == arm', 'version in [2.0,1.0)'], properties)).toEqual([
      expect.objectContaining({ index: 0, reason: 'unsatisfied', missingProperties: [] }),
      expect.objectContaining({
        index: 1,
        reason: 'invalid',
        problem: expect.objectContaining({ position: 11 }),
      }),
    ]);
  });
});

describe('compileConstraints', () => {
  it('parses once and lists the problems of the strings that do not parse', () => {
    const compiled = compileConstraints(['a == 1', '(b', 'c ==']);
    expect(compiled.problems.map((problem) => [problem.index, problem.position, problem.token])).toEqual([
      [1, 2, ''],
      [2, 4, ''],
    ]);
    expect(compiled.test([{ name: 'a', value: 1 }])).toBe(false);
    expect(compileConstraints(['a == 1']).test([{ name: 'a', value: 1 }])).toBe(true);
  });
});

describe('matching a fleet', () => {
  /** A fleet and a set of policies built deterministically, with a known share of matches. */
  const archs = ['amd64', 'arm64', 'riscv64'];
  const fleet = Array.from({ length: 10_000 }, (_, n) =>
    compilePolicy({
      name: `node n${n}`,
      properties: [
        ...builtinNodeProperties({
          arch: archs[n % 3] ?? 'amd64',
          cpus: 1 + (n % 8),
          memoryMb: 512 * (1 + (n % 16)),
          os: 'linux',
          agentVersion: `2.${n % 40}.${n % 7}`,
        }),
        { name: 'site', value: `site-${n % 25}` },
        { name: 'roles', type: 'list of strings', value: n % 2 === 0 ? 'camera,gateway' : 'sensor' },
      ],
      constraints: n % 5 === 0 ? ['tier == gold OR tier == silver'] : [],
    }),
  );
  const policies = Array.from({ length: 50 }, (_, p) =>
    compilePolicy({
      name: `deployment policy p${p}`,
      properties: [{ name: 'tier', value: p % 2 === 0 ? 'gold' : 'bronze' }],
      constraints: [
        `careen.arch == ${archs[p % 3]}${p % 4 === 0 ? `, ${archs[(p + 1) % 3]}` : ''}`,
        `careen.agentVersion in [2.${p % 10}.0,INFINITY) AND careen.cpus >= ${1 + (p % 4)}`,
        p % 3 === 0
          ? 'roles in camera, gateway AND NOT (site == site-0)'
          : 'careen.memory > 1024 OR site == site-1, site-2',
      ],
    }),
  );

  it('checks 500,000 node-policy pairs with compiled policies and agrees with the explained verdict', () => {
    let matches = 0;
    for (const policy of policies) {
      for (const node of fleet) {
        if (isCompatible(node, policy)) matches++;
      }
    }
    expect(matches).toBeGreaterThan(0);
    expect(matches).toBeLessThan(500_000);

    for (const [n, node] of fleet.entries()) {
      if (n % 97 !== 0) continue;
      const policy = policies[n % policies.length];
      if (!policy) throw new Error('there are no policies to check against');
      expect(compatible(node, policy).compatible).toBe(isCompatible(node, policy));
    }
  });
});
