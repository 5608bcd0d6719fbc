import { compileSelector, disruptiveReason, type NmpSelector, type SelectableNode } from './nmp-selection';

const nmp = (overrides: Partial<NmpSelector>): NmpSelector => ({
  org: 'acme',
  enabled: true,
  patterns: [],
  nodes: [],
  constraints: [],
  properties: [],
  ...overrides,
});
const node = (id: string, overrides: Partial<SelectableNode> = {}): SelectableNode => ({
  org: 'acme',
  id,
  pattern: null,
  policy: { properties: [], constraints: [] },
  ...overrides,
});

describe('node management policy selection', () => {
  const amd = node('amd', {
    policy: { properties: [{ name: 'careen.arch', value: 'amd64' }], constraints: [] },
  });
  const arm = node('arm', {
    policy: { properties: [{ name: 'careen.arch', value: 'arm64' }], constraints: [] },
  });
  const picky = node('picky', {
    policy: { properties: [{ name: 'careen.arch', value: 'amd64' }], constraints: ['purpose == upgrades'] },
  });
  const gateway = node('gw', { pattern: 'gateway' });
  const foreignPattern = node('fp', { pattern: 'beta/gateway' });

  it('selects policy-based nodes compatible both ways', () => {
    const select = compileSelector(
      nmp({ constraints: ['careen.arch == amd64'], properties: [{ name: 'purpose', value: 'upgrades' }] }),
    );
    expect([amd, arm, picky, gateway].filter(select).map((n) => n.id)).toEqual(['amd', 'picky']);
  });

  it("respects the node's own constraints", () => {
    const select = compileSelector(nmp({ constraints: ['careen.arch == amd64'] }));
    expect([amd, picky].filter(select).map((n) => n.id)).toEqual(['amd']);
  });

  it('selects pattern nodes by pattern, with the org defaulting to the policy org', () => {
    expect(
      [gateway, foreignPattern, amd].filter(compileSelector(nmp({ patterns: ['gateway'] }))).map((n) => n.id),
    ).toEqual(['gw']);
    expect(
      [gateway, foreignPattern].filter(compileSelector(nmp({ patterns: ['beta/gateway'] }))).map((n) => n.id),
    ).toEqual(['fp']);
    expect(
      [gateway, foreignPattern, amd].filter(compileSelector(nmp({ patterns: ['*'] }))).map((n) => n.id),
    ).toEqual(['gw', 'fp']);
  });

  it('selects exactly the listed nodes when it only lists nodes', () => {
    expect(
      [amd, arm, gateway].filter(compileSelector(nmp({ nodes: ['arm', 'gw'] }))).map((n) => n.id),
    ).toEqual(['arm', 'gw']);
  });

  it('never selects a node of another org', () => {
    expect(compileSelector(nmp({ nodes: ['x'] }))(node('x', { org: 'beta' }))).toBe(false);
  });

  it.each([
    [nmp({ patterns: ['*'] }), true],
    [nmp({}), true],
    [nmp({ constraints: ['careen.arch == amd64'] }), false],
    [nmp({ nodes: ['a'] }), false],
    [nmp({ patterns: ['gateway'] }), false],
    [nmp({ enabled: false }), false],
  ])('calls %o disruptive: %s', (policy, disruptive) => {
    expect(disruptiveReason(policy) !== undefined).toBe(disruptive);
  });
});
