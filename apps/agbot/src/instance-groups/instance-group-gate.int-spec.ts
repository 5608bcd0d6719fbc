/**
 * The instance groups a VNF manager declares to the maintenance service reach the agbot on the
 * bus (InstanceGroupDeclared), and their `max_impacted_members` holds every kind of disruption in
 * the one gate: an agent upgrade, a maintenance slot and a FleetLock reboot wait while the
 * group's instances down elsewhere and their own would pass it, and while the group recovers
 * (`recovery_time`) from the last disruption of its nodes.
 */
import { connectBus, EventPublisher, type BusConnection } from '@careen/bus';
import { InstanceGroupDeclared, type InstanceGroupPayload } from '@careen/contracts';
import { eventually, http, useTestInfra, type Credentials } from '@careen/testing';
import { UpgradeHub } from '../upgrades/upgrades.fixtures';

const ORG = 'fleet';

describe('instance groups in the disruption gate', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let admin: Credentials;
  let bus: BusConnection;
  let publisher: EventPublisher;
  const url = () => hub.agbots[0]!.url;

  const group = (overrides: Partial<InstanceGroupPayload>): InstanceGroupPayload => ({
    org: ORG,
    groupId: 'db-ha',
    project: 'shop',
    antiAffinity: true,
    maxPerHost: 0,
    maxImpacted: 1,
    recoverySeconds: 0,
    policies: ['db', 'billing'],
    removed: false,
    revision: 10,
    ...overrides,
  });
  /** Tells the state as the maintenance service would, and waits until the agbot keeps `kept`. */
  const tell = async (state: InstanceGroupPayload, kept = state.revision) => {
    await publisher.publish(InstanceGroupDeclared, [ORG], state);
    await eventually(async () => {
      const [row] = (await hub.dataSource.query(
        'SELECT revision::int AS revision FROM agbot.instance_groups WHERE org = $1 AND group_id = $2',
        [ORG, state.groupId],
      )) as { revision: number }[];
      expect(row?.revision).toBe(kept);
    });
  };
  const upgrade = async (node: string) =>
    http(url(), 'POST', `/v1/orgs/${ORG}/nodes/${node}/upgrade`, {
      auth: await hub.nodeToken(ORG, node),
      body: { managementPolicy: 'agents-2' },
    });
  const release = async (node: string) =>
    expect(
      (
        await http(url(), 'DELETE', `/v1/orgs/${ORG}/nodes/${node}/upgrade`, {
          auth: await hub.nodeToken(ORG, node),
        })
      ).status,
    ).toBe(204);
  const maintain = (node: string) =>
    http(url(), 'POST', `/v1/orgs/${ORG}/nodes/${node}/maintenance-slot`, {
      auth: admin,
      body: { leaseSeconds: 600 },
    });
  const reboot = (node: string) =>
    http(url(), 'POST', '/v1/pre-reboot', {
      body: { client_params: { id: node, group: 'default' } },
      headers: { 'fleet-lock-protocol': 'true' },
    });

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot({ CAREEN_FLEETLOCK_ORG: ORG });
    admin = await hub.userToken(ORG, 'ada', 'orgAdmin');
    await hub.seedManagementPolicy(ORG, 'agents-2', { enabled: true });
    // No HA groups: only the instance group ties these nodes together.
    await hub.seedNodes(ORG, { n1: null, n2: null, n3: null, n4: null, n5: null });
    for (const [name, project] of Object.entries({ db: 'shop', cache: 'shop', billing: 'ledger' }))
      await hub.seedResource(ORG, 'deploymentPolicy', name, { project });
    // billing is ledger's: a shop group naming it does not take its instances in.
    const workloads: Record<string, string[]> = {
      n1: ['db'],
      n2: ['db'],
      n3: ['cache', 'db'],
      n4: ['billing'],
      n5: ['db'],
    };
    for (const [node, policies] of Object.entries(workloads))
      await hub.dataSource.query(
        'INSERT INTO agbot.node_workloads (org, node, workloads, published) VALUES ($1, $2, $3, true)',
        [
          ORG,
          node,
          JSON.stringify(
            policies.map((policy) => ({
              deploymentPolicy: policy,
              service: { org: ORG, url: 'svc', version: '1' },
            })),
          ),
        ],
      );
    bus = await connectBus({ url: infra.natsUrl, name: 'instance-group-test' });
    publisher = new EventPublisher(bus.js, 'careen/maintenance-session');
    // A control over no node of these, and a grant before any group: the agbot knows the org
    // has controls and not yet that it has groups, so the first grant after the group is told
    // reads the node's groups on their own, the next ones with the slot read.
    await hub.seedResource(ORG, 'budget', 'elsewhere', { selector: { nodes: ['n9'] }, maxUnavailable: 1 });
    expect((await upgrade('n4')).status).toBe(200);
    await release('n4');
  });

  afterAll(async () => {
    await bus?.close();
    await hub.close();
  });

  it('holds every kind of disruption that would impact more of a group than it allows', async () => {
    // A message that is not a group's state is set aside; the next one is kept.
    await bus.js.publish(InstanceGroupDeclared.subject(ORG), '{"org":"fleet","groupId":7}');
    await tell(group({}));

    expect((await maintain('n1')).status).toBe(200);

    const upgraded = await upgrade('n2');
    expect([upgraded.status, upgraded.body.details?.code, upgraded.body.details?.reason]).toEqual([
      409,
      'DISRUPTION_GATED',
      'budget',
    ]);
    expect(upgraded.body.message).toContain(
      'instance group "db-ha" of project shop (at most 1 of its instances impacted at once): 1 impacted on n1, and n2 holds 1 more',
    );
    expect((await maintain('n3')).body.details?.reason).toBe('budget');
    expect(await reboot('n5')).toMatchObject({
      status: 409,
      body: {
        kind: 'failed_lock_disruption_gated',
        value: expect.stringContaining('instance group "db-ha"'),
      },
    });
    // Why n2 waits, as `careen window next --node n2` reads it.
    const outlook = await http(url(), 'GET', `/v1/orgs/${ORG}/nodes/n2/disruption`, { auth: admin });
    expect(outlook.body).toMatchObject({
      mayStart: false,
      refusal: { reason: 'budget', control: 'instance-group:db-ha', holders: ['n1'] },
      instanceGroups: [
        { group: 'db-ha', project: 'shop', maxImpacted: 1, own: 1, impacted: [{ node: 'n1', instances: 1 }] },
      ],
    });
    // n4 runs billing, another project's: not the group's, so not held.
    expect((await upgrade('n4')).status).toBe(200);
    await release('n4');

    const freed = await http(url(), 'DELETE', `/v1/orgs/${ORG}/nodes/n1/maintenance-slot`, { auth: admin });
    expect(freed.status).toBe(204);
    expect((await upgrade('n2')).status).toBe(200);
  });

  it('keeps the newest state told, whatever order states arrive in', async () => {
    // n2 holds its slot from the test before: n3 waits.
    expect((await maintain('n3')).status).toBe(409);

    // An older state arriving late (a removal told before the group was declared again) changes nothing.
    await tell(group({ removed: true, revision: 9 }), 10);
    expect((await maintain('n3')).status).toBe(409);

    await tell(group({ maxImpacted: 2, revision: 12 }));
    expect((await maintain('n3')).status).toBe(200);
    expect((await upgrade('n5')).body.details?.reason).toBe('budget');

    await tell(group({ removed: true, revision: 13 }));
    expect((await upgrade('n5')).status).toBe(200);
  });

  it("waits the group's recovery time after a disruption of its instances ends", async () => {
    await release('n2');
    await release('n5');
    const freed = await http(url(), 'DELETE', `/v1/orgs/${ORG}/nodes/n3/maintenance-slot`, { auth: admin });
    expect(freed.status).toBe(204);
    await tell(group({ recoverySeconds: 600, revision: 14 }));

    // n3 was the last of the group's nodes done: n1 waits out the group's recovery.
    const held = await maintain('n1');
    expect([held.status, held.body.details?.reason, held.body.details?.soaking]).toEqual([409, 'soak', 'n3']);
    expect(held.body.message).toContain('instance group "db-ha" of project shop recovers until');
    const retryAt = Date.parse(held.body.details?.retryAt as string);
    expect(retryAt - Date.now()).toBeGreaterThan(590_000);
    const outlook = await http(url(), 'GET', `/v1/orgs/${ORG}/nodes/n1/disruption`, { auth: admin });
    expect(outlook.body).toMatchObject({
      mayStart: false,
      refusal: { reason: 'soak', control: 'instance-group:db-ha' },
      instanceGroups: [{ group: 'db-ha', recoverySeconds: 600, recoversUntil: expect.any(String) }],
    });
    // n4 holds none of the group's instances: it does not wait.
    expect((await upgrade('n4')).status).toBe(200);

    await tell(group({ recoverySeconds: 0, revision: 15 }));
    expect((await maintain('n1')).status).toBe(200);
  });
});
