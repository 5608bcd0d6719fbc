import { type DeployCheckAnswer, formatDeployCheck, verdictOf } from './deploycheck-report';

const ANSWER: DeployCheckAnswer = {
  org: 'acme',
  deploymentPolicy: 'vision',
  service: { org: 'acme', url: 'acme.vision', version: '2.1.0' },
  compatible: false,
  summary: { nodes: 3, compatible: 2, deployable: 1 },
  nodes: [
    { node: 'edge-0', haGroup: 'line-1', compatible: true, deployable: true, version: '2.1.0', reasons: [] },
    {
      node: 'edge-1',
      haGroup: 'line-1',
      compatible: false,
      deployable: false,
      version: null,
      reasons: ['constraint 0 "camera == true" is not satisfied', 'no service version for arch arm64'],
    },
    {
      node: 'edge-2',
      haGroup: null,
      compatible: true,
      deployable: false,
      version: '2.1.0',
      reasons: ['node is cordoned (schedulable=false)'],
    },
  ],
};

const LINE_1 = {
  haGroup: 'line-1',
  members: ['edge-0', 'edge-1'],
  compatibleMembers: ['edge-0'],
  deployableMembers: ['edge-0'],
  available: true,
  staysAvailableDuringUpgrade: false,
  reason: 'only edge-0 would run the service: an upgrade would interrupt it',
};

describe('formatDeployCheck', () => {
  it('prints a summary line, then a row per node with its reasons joined', () => {
    const lines = formatDeployCheck(ANSWER).split('\n');
    expect(lines[0]).toBe(
      'deployment policy acme/vision (service acme/acme.vision 2.1.0): not compatible — ' +
        '2 of 3 node(s) compatible, 1 deployable now',
    );
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^NODE +HA GROUP +VERDICT +VERSION +REASONS$/);
    expect(lines[3]).toMatch(/^edge-0 +line-1 +deployable +2\.1\.0$/);
    expect(lines[4]).toMatch(
      /^edge-1 +line-1 +incompatible +constraint 0 "camera == true" is not satisfied; no service version for arch arm64$/,
    );
    expect(lines[5]).toMatch(/^edge-2 +compatible, unavailable +2\.1\.0 +node is cordoned/);
    expect(formatDeployCheck(ANSWER)).not.toMatch(/DURING UPGRADE/);
  });

  it('names a bare service, with its version only when there is one', () => {
    const service = { ...ANSWER, deploymentPolicy: null, compatible: true };
    expect(formatDeployCheck(service).split('\n')[0]).toBe(
      'service acme/acme.vision 2.1.0: compatible — 2 of 3 node(s) compatible, 1 deployable now',
    );
    const unversioned = { ...service, service: { ...service.service, version: null } };
    expect(formatDeployCheck(unversioned).split('\n')[0]).toMatch(/^service acme\/acme\.vision: compatible/);
  });

  it('adds a row per HA group when groups were judged, and says so when there were none', () => {
    const withGroups = formatDeployCheck({ ...ANSWER, haGroups: [LINE_1] });
    expect(withGroups).toMatch(/^HA GROUP +AVAILABLE +DURING UPGRADE +RUNS ON +REASON$/m);
    expect(withGroups).toMatch(/^line-1 +yes +no +1\/2 +only edge-0 would run the service/m);
    expect(formatDeployCheck({ ...ANSWER, haGroups: [] })).toMatch(
      /\nno HA group among the nodes checked\n$/,
    );
  });

  it('prints the summary alone when no node was checked', () => {
    const empty = { ...ANSWER, summary: { nodes: 0, compatible: 0, deployable: 0 }, nodes: [] };
    expect(formatDeployCheck(empty).split('\n')).toEqual([expect.stringMatching(/0 of 0 node\(s\)/), '']);
  });
});

describe('verdictOf', () => {
  it('tells deployable, compatible but unavailable, and incompatible apart', () => {
    expect(ANSWER.nodes.map(verdictOf)).toEqual(['deployable', 'incompatible', 'compatible, unavailable']);
  });
});
