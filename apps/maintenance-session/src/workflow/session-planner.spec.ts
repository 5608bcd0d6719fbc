import {
  planSession,
  type HostFacts,
  type PlanFacts,
  type PlanRequest,
  type WorkloadFacts,
} from './session-planner';

const node = (
  id: string,
  haGroup: string | null,
  rack: string | null,
  labels: Record<string, string> = {},
): HostFacts => ({
  id,
  haGroup,
  rack,
  labels,
});
const facts: PlanFacts = {
  nodes: [
    node('h1', 'g', 'r1', { zone: 'a' }),
    node('h2', 'g', 'r2', { zone: 'a' }),
    node('h3', null, 'r1', { zone: 'b' }),
    node('h4', null, null),
  ],
  workloads: [
    { node: 'h1', deploymentPolicy: 'web', project: 'shop' },
    { node: 'h2', deploymentPolicy: 'db', project: 'ledger' },
    { node: 'h4', deploymentPolicy: 'web', project: 'shop' },
  ] satisfies WorkloadFacts[],
  subscribed: (project) => project === 'shop',
};
const request = (overrides: Partial<PlanRequest>): PlanRequest => ({
  actionsAt: '2026-12-01T02:00:00.000Z',
  maxParallelHosts: 1,
  replyTimeoutSeconds: 120,
  replyTimeoutPolicy: 'proceed',
  ...overrides,
});

describe('planning a session', () => {
  it('takes the declared instance groups with every instance of their policies, of their own project only', () => {
    const outcome = planSession(request({ hosts: ['h1', 'h2', 'h4'] }), {
      ...facts,
      constraints: {
        groups: [
          { id: 'front', project: 'shop', maxImpacted: 1, recoverySeconds: 30 },
          { id: 'empty', project: 'shop', maxImpacted: 1, recoverySeconds: 0 },
        ],
        // db@h2 is ledger's: a shop group cannot take it in. web@h9 was declared where web ran
        // before it moved: web@h4 is the group's all the same.
        instances: [
          {
            id: 'web@h1',
            project: 'shop',
            group: 'front',
            leadSeconds: 40,
            maxInterruptionSeconds: 120,
            migrationType: 'MIGRATE',
          },
          {
            id: 'web@h9',
            project: 'shop',
            group: 'front',
            leadSeconds: 0,
            maxInterruptionSeconds: 0,
            migrationType: 'OWN_ACTION',
          },
          {
            id: 'db@h2',
            project: 'shop',
            group: 'front',
            leadSeconds: 0,
            maxInterruptionSeconds: 0,
            migrationType: 'MIGRATE',
          },
        ],
      },
    });
    expect('plan' in outcome && outcome.plan.instanceGroups).toEqual([
      { id: 'front', project: 'shop', maxImpacted: 1, recoverySeconds: 30, instances: ['web@h1', 'web@h4'] },
    ]);
    expect('plan' in outcome && outcome.plan.instanceLimits).toEqual({
      'web@h1': { leadSeconds: 40, maxInterruptionSeconds: 120, migrationType: 'MIGRATE' },
    });
  });

  it('takes the hosts listed, with their groups, instances and the projects that own them', () => {
    const outcome = planSession(
      request({
        hosts: ['h2', 'h1'],
        projects: { ledger: { replyTimeoutSeconds: 30, replyTimeoutPolicy: 'fail' } },
      }),
      facts,
    );
    expect(outcome).toEqual({
      plan: {
        hosts: [
          { id: 'h2', haGroup: 'g' },
          { id: 'h1', haGroup: 'g' },
        ],
        instances: [
          { id: 'web@h1', project: 'shop', host: 'h1' },
          { id: 'db@h2', project: 'ledger', host: 'h2' },
        ],
        projects: [
          { id: 'ledger', subscribed: false, replyTimeoutSeconds: 30, onNoAck: 'fail' },
          { id: 'shop', subscribed: true, replyTimeoutSeconds: 120, onNoAck: 'proceed' },
        ],
        actionsAt: '2026-12-01T02:00:00.000Z',
        maxParallelHosts: 1,
        downScaleProjects: [],
      },
    });
  });

  it('asks a project to down-scale when the hosts left in service cannot hold its replicas', () => {
    const replicated = [
      { name: 'web', project: 'shop', replicas: 2, candidates: ['h1', 'h2', 'h3'] },
      { name: 'db', project: 'ledger', replicas: 2, candidates: ['h1', 'h2'] },
      { name: 'cache', project: 'cache', replicas: 1, candidates: ['h4'] },
    ];
    const shrinking = (hosts: string[], maxParallelHosts: number) => {
      const outcome = planSession(request({ hosts, maxParallelHosts }), { ...facts, replicated });
      return 'plan' in outcome ? outcome.plan.downScaleProjects : outcome.problems;
    };
    // One host out at a time: web keeps 2 of 3; db keeps only 1 of its 2.
    expect(shrinking(['h1', 'h2'], 1)).toEqual(['ledger']);
    // Two out at once: web keeps only 1 too.
    expect(shrinking(['h1', 'h2'], 2)).toEqual(['ledger', 'shop']);
    // h3 out: web keeps 2 of 3. h4 out: cache has no other node.
    expect(shrinking(['h3'], 1)).toEqual([]);
    expect(shrinking(['h4'], 1)).toEqual(['cache']);
  });

  it.each([
    [{ selector: { labels: { zone: 'a' } } }, ['h1', 'h2']],
    [{ selector: { racks: ['r1'] } }, ['h1', 'h3']],
    [{ selector: { haGroups: ['g'], racks: ['r2'] } }, ['h2']],
    [{ selector: { labels: { zone: 'b' }, racks: [], haGroups: [] } }, ['h3']],
  ])('selects by %j: criteria intersect, an empty one is ignored', (selection, hosts) => {
    const outcome = planSession(request(selection), facts);
    expect('plan' in outcome && outcome.plan.hosts.map((host) => host.id)).toEqual(hosts);
  });

  it('names every problem at once, each with its path', () => {
    const outcome = planSession(request({ hosts: ['h1', 'ghost', 'h1'], projects: { nobody: {} } }), facts);
    expect(outcome).toEqual({
      problems: [
        { path: 'hosts[1]', problem: 'no node "ghost" in the org' },
        { path: 'hosts[2]', problem: 'host "h1" is listed twice' },
        { path: 'projects.nobody', problem: 'project "nobody" has no instance on the session\'s hosts' },
      ],
    });
  });

  it.each([
    [{}, 'hosts', 'either hosts'],
    [{ hosts: ['h1'], selector: { racks: ['r1'] } }, 'hosts', 'not both'],
    [{ hosts: [] }, 'hosts', 'empty'],
    [{ selector: {} }, 'selector', 'names no criterion'],
    [{ selector: { racks: ['r9'] } }, 'selector', 'matches no node'],
  ])('refuses %j, naming %s', (selection, path, words) => {
    const outcome = planSession(request(selection), facts);
    expect(outcome).toEqual({ problems: [{ path, problem: expect.stringContaining(words) }] });
  });
});
