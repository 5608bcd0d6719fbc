import { checkInstanceGroup, instanceGroupRecovery } from './instance-group-check';

describe('instance-group budgets', () => {
  const usage = (own: number, impacted: { node: string; instances: number }[]) => ({
    group: 'db-ha',
    project: 'shop',
    maxImpacted: 2,
    own,
    impacted,
  });

  it('lets a node go while its instances and those down elsewhere stay within the group', () => {
    expect(checkInstanceGroup('n3', usage(1, [{ node: 'n1', instances: 1 }]))).toBeUndefined();
    expect(checkInstanceGroup('n3', usage(0, [{ node: 'n1', instances: 2 }]))).toBeUndefined();
  });

  it('counts instances, not nodes, and never the asking node', () => {
    expect(checkInstanceGroup('n3', usage(1, [{ node: 'n1', instances: 2 }]))).toEqual({
      reason: 'budget',
      control: 'instance-group:db-ha',
      allowed: 2,
      holders: ['n1'],
      message:
        'instance group "db-ha" of project shop (at most 2 of its instances impacted at once): 2 impacted on n1, and n3 holds 1 more',
    });
    expect(checkInstanceGroup('n1', usage(2, [{ node: 'n1', instances: 2 }]))).toBeUndefined();
  });

  it('keeps the group recovering for its recovery time after another node was done', () => {
    const group = { group: 'db-ha', project: 'shop', recoverySeconds: 30 };
    const ended = { node: 'n1', at: new Date('2026-12-06T10:00:00.000Z') };
    expect(instanceGroupRecovery(group, ended, new Date('2026-12-06T10:00:29.999Z'))).toEqual({
      reason: 'soak',
      control: 'instance-group:db-ha',
      node: 'n1',
      until: new Date('2026-12-06T10:00:30.000Z'),
      message:
        'instance group "db-ha" of project shop recovers until 2026-12-06T10:00:30.000Z (30 s after n1 was done at 2026-12-06T10:00:00.000Z)',
    });
    expect(instanceGroupRecovery(group, ended, new Date('2026-12-06T10:00:30.000Z'))).toBeUndefined();
    expect(instanceGroupRecovery({ ...group, recoverySeconds: 0 }, ended, ended.at)).toBeUndefined();
    expect(instanceGroupRecovery(group, null, ended.at)).toBeUndefined();
  });

  it('lets a node holding more than the group allows go alone, never beside another', () => {
    expect(checkInstanceGroup('n3', usage(3, []))).toBeUndefined();
    expect(checkInstanceGroup('n3', usage(3, [{ node: 'n1', instances: 1 }]))?.holders).toEqual(['n1']);
  });
});
