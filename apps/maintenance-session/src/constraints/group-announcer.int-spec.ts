/**
 * Each change of an instance group or of one of its instances writes the group's whole state to
 * the outbox in the same transaction (InstanceGroupDeclared, for the agbot), numbered so that the
 * later state of a group always carries the higher revision; a removal is told once more; at
 * start every group is told again.
 */
import { type InstanceGroupPayload } from '@careen/contracts';
import { OutboxWriter } from '@careen/persistence';
import { useTestInfra } from '@careen/testing';
import { type DataSource } from 'typeorm';
import { maintenanceDataSource } from '../maintenance-data-source.fixtures';
import { ConstraintsStore } from './constraints.store';
import { GroupAnnouncer } from './group-announcer';
import { type InstanceConstraintDto, type InstanceGroupDto } from './dto/instance-group.dto';

const ORG = 'acme';

describe('instance groups told to the agbot', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  let store: ConstraintsStore;

  const group = (overrides: Partial<InstanceGroupDto> = {}): InstanceGroupDto => ({
    project_id: 'shop',
    group_name: 'g',
    anti_affinity_group: true,
    max_instances_per_host: 0,
    max_impacted_members: 1,
    recovery_time: 0,
    resource_mitigation: false,
    ...overrides,
  });
  const instance = (group_id: string | undefined): InstanceConstraintDto =>
    ({
      project_id: 'shop',
      group_id,
      instance_name: 'i',
      max_interruption_time: 0,
      migration_type: 'MIGRATE',
      resource_mitigation: false,
      lead_time: 0,
    }) as InstanceConstraintDto;
  /** The states told since the last call, in the order they were written. */
  const told = async (): Promise<Partial<InstanceGroupPayload>[]> => {
    const rows = (await dataSource.query(
      `DELETE FROM maintenance_session.outbox WHERE subject = 'careen.maint.groups.acme' RETURNING id, payload`,
    )) as [{ id: string; payload: InstanceGroupPayload }[], number];
    return rows[0]
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map(({ payload: { groupId, policies, removed, revision, maxImpacted } }) => ({
        groupId,
        policies,
        removed,
        revision,
        maxImpacted,
      }));
  };
  const allow = () => undefined;

  beforeAll(async () => {
    dataSource = await maintenanceDataSource(infra.databaseUrl, 'group-announcer');
    store = new ConstraintsStore(dataSource, new OutboxWriter('maintenance_session'));
  });

  afterAll(() => dataSource.destroy());

  it("tells a group's state with the policies its instances name, each change newer than the last", async () => {
    await store.putGroup(ORG, 'front', group(), 'ada');
    await store.putGroup(ORG, 'back', group({ max_impacted_members: 2 }), 'ada');
    await store.putInstance(ORG, 'web@h1', instance('front'), 'ada');
    await store.putInstance(ORG, 'web@h2', instance('front'), 'ada');
    // Not of the `<policy>@<host>` form: kept, but it names no policy.
    await store.putInstance(ORG, '8d3c-uuid', instance('front'), 'ada');
    const states = await told();
    expect(states.map(({ groupId, policies }) => [groupId, policies])).toEqual([
      ['front', []],
      ['back', []],
      ['front', ['web']],
      ['front', ['web']],
      ['front', ['web']],
    ]);
    const revisions = states.map((state) => state.revision!);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));

    // An instance moving to another group: both are told.
    await store.putInstance(ORG, 'db@h3', instance('front'), 'ada');
    await told();
    await store.putInstance(ORG, 'db@h3', instance('back'), 'ada');
    expect((await told()).map(({ groupId, policies }) => [groupId, policies])).toEqual([
      ['back', ['db']],
      ['front', ['web']],
    ]);
    await store.removeInstance(ORG, 'db@h3', allow);
    expect(await told()).toMatchObject([{ groupId: 'back', policies: [], removed: false }]);
  });

  it('tells a removal, and every group again at start', async () => {
    await store.removeGroup(ORG, 'back', allow);
    const [removal] = await told();
    expect(removal).toMatchObject({ groupId: 'back', removed: true, policies: [] });

    expect(await store.announceAll()).toBe(1);
    const [again] = await told();
    expect(again).toMatchObject({ groupId: 'front', policies: ['web'], removed: false });
    expect(again!.revision).toBeGreaterThan(removal!.revision!);

    // A group removed between the start's listing and its transaction is not told again as declared.
    const announcer = new GroupAnnouncer(new OutboxWriter('maintenance_session'));
    await dataSource.transaction((manager) => announcer.announce(manager, ORG, ['back', 'front']));
    expect((await told()).map(({ groupId }) => groupId)).toEqual(['front']);
  });

  it('orders two changes of one group racing each other: the later state holds both', async () => {
    await store.putGroup(ORG, 'race', group(), 'ada');
    await told();
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((policy) => store.putInstance(ORG, `${policy}@h1`, instance('race'), 'ada')),
    );
    const states = await told();
    const newest = states.reduce((a, b) => (a.revision! > b.revision! ? a : b));
    expect(newest.policies).toEqual(['a', 'b', 'c', 'd']);
  });
});
