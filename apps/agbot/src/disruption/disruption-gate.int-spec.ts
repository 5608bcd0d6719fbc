/**
 * The disruption gate in the semaphore's transaction (docs/architecture.md, invariant 9): freezes,
 * windows and budgets refuse agent upgrades, maintenance slots and FleetLock reboots alike, each
 * with its reason; work under way renews; budgets hold under many concurrent askers.
 */
import { type UpgradeHolderKind } from '@careen/contracts';
import { http, useTestInfra, type Credentials } from '@careen/testing';
import { UpgradeSemaphore } from '../upgrades/upgrade-semaphore';
import { findViolations, holdersOverTime } from '../upgrades/upgrade-timeline';
import { UpgradeHub } from '../upgrades/upgrades.fixtures';

const FLEETLOCK_HEADER = { 'fleet-lock-protocol': 'true' };

/** `HH:MM` in UTC, `minutes` from now. */
function utcClock(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);
}
const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

describe('the disruption gate', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let admin: Credentials;
  const url = () => hub.agbots[0]!.url;
  const upgrade = async (node: string, org = 'acme') =>
    http(url(), 'POST', `/v1/orgs/${org}/nodes/${node}/upgrade`, {
      auth: await hub.nodeToken(org, node),
      body: { managementPolicy: 'agents-2' },
    });
  const releaseUpgrade = async (node: string, org = 'acme') =>
    http(url(), 'DELETE', `/v1/orgs/${org}/nodes/${node}/upgrade`, { auth: await hub.nodeToken(org, node) });
  const maintenance = (node: string, org = 'acme') =>
    http(url(), 'POST', `/v1/orgs/${org}/nodes/${node}/maintenance-slot`, {
      auth: admin,
      body: { leaseSeconds: 60 },
    });
  const reboot = (id: string, group: string) =>
    http(url(), 'POST', '/v1/pre-reboot', {
      body: { client_params: { id, group } },
      headers: FLEETLOCK_HEADER,
    });

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot({ CAREEN_FLEETLOCK_ORG: 'fleet', CAREEN_FLEETLOCK_SLOTS: '1' });
    admin = await hub.userToken('acme', 'ada', 'orgAdmin');
    await hub.seedManagementPolicy('acme', 'agents-2', { enabled: true });
  });

  afterAll(() => hub.close());

  /** The careen_disruption_blocked gauge's non-zero samples, by their labels. */
  const blockedNow = async () =>
    Object.fromEntries(
      [
        ...String((await http(url(), 'GET', '/metrics')).body).matchAll(
          /^careen_disruption_blocked\{(.*)\} (\d+)$/gm,
        ),
      ]
        .filter(([, , value]) => Number(value) > 0)
        .map(([, labels, value]) => [labels, Number(value)]),
    );

  it('refuses every kind of disruption during a freeze, naming it and when it ends, and lets other nodes go', async () => {
    await hub.seedNode('acme', 'ams-1', { haGroup: null, labels: { site: 'ams' } });
    await hub.seedNode('acme', 'fra-1', { haGroup: null, labels: { site: 'fra' } });
    await hub.seedNode('fleet', 'ams-r1', { haGroup: null, labels: { site: 'ams' } });
    const until = new Date(Date.now() + 3 * 3_600_000).toISOString();
    for (const org of ['acme', 'fleet']) {
      await hub.seedResource(org, 'freeze', 'year-end', {
        selector: { labels: { site: 'ams' } },
        from: new Date(Date.now() - 60_000).toISOString(),
        until,
      });
    }

    const refused = await upgrade('ams-1');
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual({
      code: 'DISRUPTION_GATED',
      node: 'ams-1',
      reason: 'freeze',
      control: 'year-end',
      retryAt: until,
    });
    expect(refused.body.message).toMatch(
      /^node "acme\/ams-1" may not be disrupted now: freeze "year-end" until /,
    );
    const slot = await maintenance('ams-1');
    expect(slot.status).toBe(409);
    expect(slot.body.details).toMatchObject({ reason: 'freeze', control: 'year-end' });
    const lock = await reboot('ams-r1', 'default');
    expect(lock.status).toBe(409);
    expect(lock.body).toEqual({
      kind: 'failed_lock_disruption_gated',
      value: expect.stringMatching(/^reboot not allowed now: freeze "year-end" until /),
    });

    expect(
      (await http(url(), 'GET', '/v1/orgs/acme/nodes/ams-1/disruption', { auth: admin })).body,
    ).toMatchObject({
      mayStart: false,
      refusal: { reason: 'freeze', control: 'year-end', retryAt: until },
      nextStart: until,
      freezes: [{ name: 'year-end', until }],
    });

    // What the freeze holds back now: the node's upgrade, its maintenance and the reboot.
    expect(await blockedNow()).toEqual({
      'holder="agent-upgrade",reason="freeze",service="agbot"': 1,
      'holder="maintenance",reason="freeze",service="agbot"': 1,
      'holder="fleetlock",reason="freeze",service="agbot"': 1,
    });

    expect((await upgrade('fra-1')).status).toBe(200);
    await releaseUpgrade('fra-1');
    for (const org of ['acme', 'fleet']) await hub.deleteSeededResource(org, 'freeze', 'year-end');
    expect((await upgrade('ams-1')).status).toBe(200);
    await releaseUpgrade('ams-1');
    expect(await blockedNow()).toEqual({
      'holder="maintenance",reason="freeze",service="agbot"': 1,
      'holder="fleetlock",reason="freeze",service="agbot"': 1,
    });
  });

  it('starts a disruption only inside a window that covers the node, and lets work under way renew', async () => {
    await hub.seedNode('acme', 'w-1', { haGroup: null, rack: 'r7' });
    const window = (name: string, startsInMinutes: number) =>
      hub.seedResource('acme', 'window', name, {
        selector: { racks: ['r7'] },
        days: EVERY_DAY,
        start: utcClock(startsInMinutes),
        durationMinutes: 120,
        cutoffMinutes: 30,
        timeZone: 'UTC',
      });
    await window('nightly', -10);
    expect((await upgrade('w-1')).status).toBe(200);

    // The window is moved to open in six hours: the upgrade under way goes on renewing.
    await window('nightly', 360);
    expect((await upgrade('w-1')).status).toBe(200);
    await releaseUpgrade('w-1');
    const refused = await upgrade('w-1');
    expect(refused.status).toBe(409);
    expect(refused.body.details).toMatchObject({ reason: 'outside-window', control: 'nightly' });
    const opensAt = Date.parse(refused.body.details.retryAt);
    expect(Math.abs(opensAt - (Date.now() + 360 * 60_000))).toBeLessThan(61_000);
    expect(refused.body.message).toContain('outside window "nightly" (opens ');

    // What the node, or a member of its org, reads of it.
    const outlook = await http(url(), 'GET', '/v1/orgs/acme/nodes/w-1/disruption', {
      auth: await hub.nodeToken('acme', 'w-1'),
    });
    expect(outlook.status).toBe(200);
    expect(outlook.body).toMatchObject({
      node: 'w-1',
      haGroup: null,
      mayStart: false,
      refusal: { reason: 'outside-window', control: 'nightly', retryAt: refused.body.details.retryAt },
      nextStart: refused.body.details.retryAt,
      windows: [{ name: 'nightly', timeZone: 'UTC', open: false, opensAt: refused.body.details.retryAt }],
      freezes: [],
      budgets: [],
    });
    const stranger = await http(url(), 'GET', '/v1/orgs/acme/nodes/w-1/disruption', {
      auth: await hub.nodeToken('acme', 'fra-1'),
    });
    expect(stranger.status).toBe(403);
    const unknown = await http(url(), 'GET', '/v1/orgs/acme/nodes/nowhere/disruption', { auth: admin });
    expect(unknown.status).toBe(404);

    // Past the cutoff no new step starts, though the window is still open.
    await window('nightly', -100);
    expect((await upgrade('w-1')).body.details).toMatchObject({ reason: 'outside-window' });
    await hub.deleteSeededResource('acme', 'window', 'nightly');
  });

  it('keeps a node its agent declared busy from being disrupted until it is free or the declaration lapses', async () => {
    await hub.seedNode('acme', 'db-1', { haGroup: null });
    const nodeAuth = await hub.nodeToken('acme', 'db-1');
    const declared = await http(url(), 'PUT', '/v1/orgs/acme/nodes/db-1/busy', {
      auth: nodeAuth,
      body: { reason: 'nightly backup', seconds: 3600 },
    });
    expect(declared.status).toBe(200);
    expect(declared.body).toMatchObject({
      node: 'db-1',
      reason: 'nightly backup',
      declaredBy: 'node acme/db-1',
    });

    const refused = await upgrade('db-1');
    expect(refused.status).toBe(409);
    expect(refused.body.details).toMatchObject({ reason: 'busy', retryAt: declared.body.until });
    expect(refused.body.message).toContain('the node is busy until');
    expect(refused.body.message).toContain('nightly backup (declared by node acme/db-1)');
    expect((await maintenance('db-1')).body.details).toMatchObject({ reason: 'busy' });
    expect(
      (await http(url(), 'GET', '/v1/orgs/acme/nodes/db-1/disruption', { auth: nodeAuth })).body,
    ).toMatchObject({
      mayStart: false,
      busy: { reason: 'nightly backup', until: declared.body.until },
    });
    // Another node may not declare it busy or free; bad bodies name the field.
    expect(
      (
        await http(url(), 'DELETE', '/v1/orgs/acme/nodes/db-1/busy', {
          auth: await hub.nodeToken('acme', 'fra-1'),
        })
      ).status,
    ).toBe(403);
    const bad = await http(url(), 'PUT', '/v1/orgs/acme/nodes/db-1/busy', {
      auth: nodeAuth,
      body: { reason: '', seconds: 0 },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('seconds');

    // A declaration lapses by itself: it is moved into the past rather than waited for.
    await hub.dataSource.query("UPDATE agbot.busy_nodes SET until = clock_timestamp() - interval '1 second'");
    expect((await upgrade('db-1')).status).toBe(200);
    await releaseUpgrade('db-1');

    expect(
      (
        await http(url(), 'PUT', '/v1/orgs/acme/nodes/db-1/busy', {
          auth: admin,
          body: { reason: 'resize', seconds: 60 },
        })
      ).body,
    ).toMatchObject({ declaredBy: 'user acme/ada' });
    expect((await upgrade('db-1')).status).toBe(409);
    expect((await http(url(), 'DELETE', '/v1/orgs/acme/nodes/db-1/busy', { auth: nodeAuth })).status).toBe(
      204,
    );
    expect((await upgrade('db-1')).status).toBe(200);
    await releaseUpgrade('db-1');
  });

  it('refuses a node beyond a budget, naming it and who holds it, and lets it go once one gives back', async () => {
    for (const node of ['bud-1', 'bud-2', 'bud-3'])
      await hub.seedNode('acme', node, { haGroup: null, labels: { site: 'bud' } });
    await hub.seedResource('acme', 'budget', 'bud-two', {
      selector: { labels: { site: 'bud' } },
      maxUnavailable: 2,
    });

    expect((await upgrade('bud-1')).status).toBe(200);
    expect((await maintenance('bud-2')).status).toBe(200);
    const refused = await upgrade('bud-3');
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual({
      code: 'DISRUPTION_GATED',
      node: 'bud-3',
      reason: 'budget',
      control: 'bud-two',
      allowed: 2,
      holders: ['bud-1', 'bud-2'],
    });
    expect(refused.body.message).toContain(
      'budget "bud-two" (site=bud, at most 2 down): 2 of 2 held by bud-1, bud-2',
    );
    // A holder renews whatever the budget says: work under way finishes.
    expect((await upgrade('bud-1')).status).toBe(200);

    await releaseUpgrade('bud-1');
    expect((await upgrade('bud-3')).status).toBe(200);
    await releaseUpgrade('bud-3');
    await http(url(), 'DELETE', '/v1/orgs/acme/nodes/bud-2/maintenance-slot', { auth: admin });
    await hub.deleteSeededResource('acme', 'budget', 'bud-two');
  });

  it('runs a group with maxUnavailable 2 two members at a time', async () => {
    const members = ['g1', 'g2', 'g3', 'g4', 'g5'];
    for (const node of members) await hub.seedNode('acme', node, { haGroup: 'pair-of-five' });
    await hub.seedResource('acme', 'haGroup', 'pair-of-five', { members, maxUnavailable: 2 });

    const answers = await Promise.all(members.map((node) => upgrade(node)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 409, 409, 409]);
    const holders = members.filter((_, index) => answers[index]!.status === 200);
    await releaseUpgrade(holders[0]!);
    const waiting = members.filter((node) => !holders.includes(node));
    const next = await Promise.all(waiting.map((node) => upgrade(node)));
    expect(next.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const node of members) await releaseUpgrade(node);

    const steps = holdersOverTime(await hub.timeline(), 'acme', new Set(members));
    expect(Math.max(...steps.map((step) => step.holders.length))).toBe(2);
  });

  it('keeps every budget under 100 concurrent askers of every kind', async () => {
    // 100 nodes in 20 groups of five, half at each site; at most 10 % of ams, and 12 of the org.
    const nodes = Array.from({ length: 100 }, (_, index) => ({
      id: `b${String(index).padStart(3, '0')}`,
      haGroup: `bg${Math.floor(index / 5)}`,
      site: index % 2 === 0 ? 'ams' : 'fra',
    }));
    for (const node of nodes)
      await hub.seedNode('budgets', node.id, { haGroup: node.haGroup, labels: { site: node.site } });
    await hub.seedResource('budgets', 'budget', 'ams-tenth', {
      selector: { labels: { site: 'ams' } },
      maxUnavailable: '10%',
    });
    await hub.seedResource('budgets', 'budget', 'whole-org', { maxUnavailable: 12 });
    const semaphore = hub.agbots[0]!.app.get(UpgradeSemaphore);
    const kinds: UpgradeHolderKind[] = ['agent-upgrade', 'maintenance', 'fleetlock'];

    let granted = 0;
    await Promise.all(
      nodes.map(async (node, index) => {
        const kind = kinds[index % 3]!;
        for (let round = 0; round < 3; round++) {
          const answer = await semaphore.acquire({
            org: 'budgets',
            node: node.id,
            kind,
            managementPolicy: kind === 'agent-upgrade' ? 'any' : null,
            leaseSeconds: 60,
            fleetLockSlots: 1,
          });
          if (answer.outcome !== 'granted') continue;
          granted += 1;
          await new Promise((resolve) => setImmediate(resolve));
          await semaphore.release({ org: 'budgets', node: node.id, kind });
        }
      }),
    );

    const timeline = (await hub.timeline()).filter((event) => event.org === 'budgets');
    const most = (ids: string[]) =>
      Math.max(0, ...holdersOverTime(timeline, 'budgets', new Set(ids)).map((step) => step.holders.length));
    const ams = nodes.filter((node) => node.site === 'ams').map((node) => node.id);
    expect(granted).toBeGreaterThan(20);
    expect(most(ams)).toBeLessThanOrEqual(5);
    expect(most(nodes.map((node) => node.id))).toBeLessThanOrEqual(12);
    // The budgets were reached, not merely never tested.
    expect(most(nodes.map((node) => node.id))).toBeGreaterThanOrEqual(6);
    expect(findViolations(timeline, 1)).toEqual([]);
  });
});
