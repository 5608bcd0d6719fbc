import { DomainError } from '@careen/contracts';
import { aNode, aPolicy, aService } from '../placement/placement.fixtures';
import { seededRandom } from '@careen/testing';
import { PlacementEngine } from '../placement/placement-engine';
import { type PlacementNode } from '../placement/placement.types';
import { DeployChecker } from './deploy-checker';
import { DeployCheckErrorCode } from './deploycheck.errors';
import { type DeployCheckRequest, type DeployCheckSources } from './deploycheck.types';

const NOW = new Date('2026-11-20T12:00:00Z');
const checker = new DeployChecker(() => NOW);

/** Open Horizon's HA-group test fleet: a group whose members differ (only some have a camera). */
const camera = [{ name: 'camera', value: true }];
const sources: DeployCheckSources = {
  nodes: [
    aNode('edge-0', { haGroup: 'line-1', properties: camera }),
    aNode('edge-1', { haGroup: 'line-1' }),
    aNode('edge-2', { haGroup: 'line-1', properties: camera }),
    aNode('edge-3', { haGroup: 'line-2', properties: camera }),
    aNode('edge-4', { haGroup: 'line-2' }),
    aNode('pi', { arch: 'arm64' }),
    aNode('cordoned', { schedulable: false, properties: camera }),
    aNode('other-org', { org: 'other', properties: camera }),
  ],
  policies: [
    aPolicy('base', { url: 'acme.base' }),
    aPolicy('vision', { url: 'acme.vision', constraints: ['camera == true'], versionRange: '^2' }),
  ],
  services: [
    aService('1.0.0', { url: 'acme.base' }),
    aService('1.0.0', { url: 'acme.base', arch: 'arm64' }),
    aService('2.1.0', { url: 'acme.vision' }),
    aService('3.0.0', { url: 'acme.vision' }),
  ],
};

function check(request: Partial<DeployCheckRequest>) {
  return checker.check({ org: 'acme', checkHA: false, ...request }, sources);
}

function expectError(run: () => unknown, code: DeployCheckErrorCode, kind: DomainError['kind']) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code, kind });
    return;
  }
  throw new Error('expected an error');
}

describe('DeployChecker', () => {
  it('gives every node of the org a verdict with reasons, and never looks at other orgs', () => {
    const result = check({ deploymentPolicy: 'vision' });
    expect(result.nodes.map((node) => node.node)).toEqual([
      'cordoned',
      'edge-0',
      'edge-1',
      'edge-2',
      'edge-3',
      'edge-4',
      'pi',
    ]);
    expect(result.nodes.find((node) => node.node === 'edge-0')).toEqual({
      node: 'edge-0',
      haGroup: 'line-1',
      compatible: true,
      deployable: true,
      version: '2.1.0',
      reasons: [],
    });
    const edge1 = result.nodes.find((node) => node.node === 'edge-1');
    expect(edge1).toMatchObject({ compatible: false, deployable: false, version: null });
    expect(edge1?.reasons[0]).toContain('"camera == true" is not satisfied by node acme/edge-1');
    expect(result.nodes.find((node) => node.node === 'pi')?.reasons).toContain(
      'no version of service acme/acme.vision in range "^2" for arch arm64',
    );
    expect(result.nodes.find((node) => node.node === 'cordoned')).toMatchObject({
      compatible: true,
      deployable: false,
      reasons: ['node is cordoned (schedulable=false)'],
    });
    expect(result).toMatchObject({ compatible: false, summary: { nodes: 7, compatible: 4, deployable: 3 } });
    expect(result.haGroups).toBeUndefined();
  });

  it('agrees with placement on which nodes a policy lands on', () => {
    const next = seededRandom(7);
    const nodes: PlacementNode[] = Array.from({ length: 60 }, (_, i) =>
      aNode(`n${i}`, {
        arch: next() < 0.3 ? 'arm64' : 'amd64',
        schedulable: next() > 0.1,
        maintenance: next() < 0.1 ? { session: 's' } : null,
        properties: next() < 0.5 ? camera : [],
        constraints: next() < 0.2 ? ['tier == gold'] : [],
      }),
    );
    const fleet = { ...sources, nodes };
    const engine = new PlacementEngine(() => NOW);
    engine.load({ nodes, policies: fleet.policies, services: fleet.services });
    for (const policy of ['base', 'vision']) {
      const verdicts = checker.check({ org: 'acme', checkHA: false, deploymentPolicy: policy }, fleet);
      const deployable = verdicts.nodes
        .filter((node) => node.deployable)
        .map((node) => node.node)
        .sort();
      expect(deployable).toEqual(
        (engine.placementOf('acme', policy)?.nodes ?? []).map((entry) => entry.node).sort(),
      );
    }
  });

  describe('with checkHA', () => {
    it('checks every member of the node group and says whether the group stays available', () => {
      const result = check({ deploymentPolicy: 'vision', node: 'edge-0', checkHA: true });
      expect(result.nodes.map((node) => node.node)).toEqual(['edge-0', 'edge-1', 'edge-2']);
      expect(result.haGroups).toEqual([
        {
          haGroup: 'line-1',
          members: ['edge-0', 'edge-1', 'edge-2'],
          compatibleMembers: ['edge-0', 'edge-2'],
          deployableMembers: ['edge-0', 'edge-2'],
          available: true,
          staysAvailableDuringUpgrade: true,
          reason:
            '2 members would run the service; an upgrade rolls one at a time; 1 member(s) not meant to run it are not counted',
        },
      ]);
    });

    it('warns when only one member of a group could run the service', () => {
      const result = check({ deploymentPolicy: 'vision', haGroup: 'line-2' });
      expect(result.haGroups?.[0]).toMatchObject({
        available: true,
        staysAvailableDuringUpgrade: false,
        reason:
          'only edge-3 would run the service: an upgrade would interrupt it; 1 member(s) not meant to run it are not counted',
      });
      expect(result.compatible).toBe(false);
    });

    it('judges every group of the org when no node or group is named', () => {
      const result = check({ deploymentPolicy: 'base', checkHA: true });
      expect(result.haGroups?.map((group) => [group.haGroup, group.staysAvailableDuringUpgrade])).toEqual([
        ['line-1', true],
        ['line-2', true],
      ]);
    });

    it('checks a lone node alone when it is in no group', () => {
      const result = check({ deploymentPolicy: 'base', node: 'pi', checkHA: true });
      expect(result.nodes.map((node) => node.node)).toEqual(['pi']);
      expect(result).toMatchObject({ compatible: true, haGroups: [] });
    });
  });

  describe('a bare service', () => {
    it('checks the newest version, or the one asked for, against node policies', () => {
      const newest = check({ service: { org: 'acme', url: 'acme.vision' }, node: 'edge-0' });
      expect(newest.nodes[0]).toMatchObject({ compatible: true, version: '3.0.0' });
      expect(newest.service).toEqual({ org: 'acme', url: 'acme.vision', version: '3.0.0' });
      const pinned = check({ service: { org: 'acme', url: 'acme.base', version: '1.0.0' }, node: 'pi' });
      expect(pinned.nodes[0]).toMatchObject({ compatible: true, version: '1.0.0' });
    });

    it('fails nodes whose constraints the service does not satisfy', () => {
      const picky = { ...sources, nodes: [aNode('picky', { constraints: ['certified == true'] })] };
      const result = checker.check(
        { org: 'acme', checkHA: false, service: { org: 'acme', url: 'acme.base' } },
        picky,
      );
      expect(result.nodes[0]?.compatible).toBe(false);
      expect(result.nodes[0]?.reasons[0]).toContain('certified == true');
    });

    it('answers not found for an unknown service or version, or one of another org', () => {
      expectError(
        () => check({ service: { org: 'acme', url: 'acme.nope' } }),
        DeployCheckErrorCode.ServiceNotFound,
        'not-found',
      );
      expectError(
        () => check({ service: { org: 'acme', url: 'acme.base', version: '9.9.9' } }),
        DeployCheckErrorCode.ServiceNotFound,
        'not-found',
      );
      const shared = {
        ...sources,
        services: [...sources.services, aService('1.0.0', { org: 'other', url: 'o.svc' })],
      };
      expectError(
        () => checker.check({ org: 'acme', checkHA: false, service: { org: 'other', url: 'o.svc' } }, shared),
        DeployCheckErrorCode.ServiceNotFound,
        'not-found',
      );
    });
  });

  it('refuses unknown policies, nodes and groups, and ambiguous requests', () => {
    expectError(
      () => check({ deploymentPolicy: 'nope' }),
      DeployCheckErrorCode.DeploymentPolicyNotFound,
      'not-found',
    );
    expectError(
      () => check({ deploymentPolicy: 'base', node: 'other-org' }),
      DeployCheckErrorCode.NodeNotFound,
      'not-found',
    );
    expectError(
      () => check({ deploymentPolicy: 'base', haGroup: 'nope' }),
      DeployCheckErrorCode.HaGroupNotFound,
      'not-found',
    );
    expectError(() => check({}), DeployCheckErrorCode.InvalidCheck, 'invalid');
    expectError(
      () => check({ deploymentPolicy: 'base', service: { org: 'acme', url: 'acme.base' } }),
      DeployCheckErrorCode.InvalidCheck,
      'invalid',
    );
    expectError(
      () => check({ deploymentPolicy: 'base', node: 'pi', haGroup: 'line-1' }),
      DeployCheckErrorCode.InvalidCheck,
      'invalid',
    );
  });
});
