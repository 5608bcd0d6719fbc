/**
 * Service upgrades rolled through HA groups by the agbot, on the real exchange, with a fleet
 * that starts and reports workloads like agents do. As Open Horizon's HA-group tests
 * (docs/domain.md): a homogeneous group, a heterogeneous group (one member not meant to run the
 * service) and standalone nodes.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { ServiceFleet, type FleetNodeSpec } from './support/service-fleet';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const web = [{ name: 'role', value: 'web' }];
const db = [{ name: 'role', value: 'db' }];

const NODES: (FleetNodeSpec & { group?: string })[] = [
  { id: 'h1', rack: 'r1', properties: web, group: 'homog' },
  { id: 'h2', rack: 'r2', properties: web, group: 'homog' },
  { id: 'h3', rack: 'r3', properties: web, group: 'homog' },
  { id: 'x1', rack: 'r1', properties: web, group: 'hetero' },
  { id: 'x2', rack: 'r2', properties: db, group: 'hetero' },
  { id: 'x3', rack: 'r3', properties: web, group: 'hetero' },
  { id: 's1', rack: 'r1', properties: web },
  { id: 's2', rack: 'r2', properties: web },
  { id: 's3', rack: 'r3', properties: web },
  // Accepts only workloads whose policy says tier "gold": compatibility is checked both ways.
  { id: 'c1', rack: 'r4', properties: [{ name: 'role', value: 'cache' }], constraints: ['tier == "gold"'] },
];
const GROUPS = ['homog', 'hetero'];
const meantToRun = (group: string) =>
  NODES.filter((node) => node.group === group && node.properties === web).map((node) => node.id);

describe('agbot: rolled service upgrades through HA groups', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const agbots: InProcessService<AgbotConfig>[] = [];
  let fleet: ServiceFleet;
  /** Sampling of invariant 2: every group always has a member meant to run the service running it. */
  let sampler: NodeJS.Timeout | undefined;
  const outages: string[] = [];
  let samples = 0;

  const call = (method: string, path: string, body?: object) =>
    http(exchange.url, method, path, { auth: root, ...(body ? { body } : {}) });

  async function startAgbot(): Promise<InProcessService<AgbotConfig>> {
    const agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      CAREEN_AGBOT_ROLLOUT_PARALLELISM: '2',
      CAREEN_AGBOT_ROLLOUT_DEADLINE_SECONDS: '3',
      CAREEN_AGBOT_OFFLINE_AFTER_SECONDS: '2',
    });
    agbots.push(agbot);
    return agbot;
  }

  async function publishVersion(version: string): Promise<void> {
    const answer = await call('PUT', `/v1/orgs/acme/services/web-${version.replaceAll('.', '-')}`, {
      url: 'acme.web',
      version,
      arch: 'amd64',
      runtime: {},
    });
    expect(answer.status).toBeLessThan(300);
  }

  const runningVersion = (id: string) =>
    fleet.running(id).find((workload) => workload.deploymentPolicy === 'web')?.service.version;

  function startSampling(): void {
    sampler = setInterval(() => {
      samples++;
      for (const group of GROUPS) {
        if (!meantToRun(group).some((id) => runningVersion(id) !== undefined)) {
          outages.push(`${group} at ${new Date().toISOString()}`);
        }
      }
    }, 10);
  }

  async function allRun(version: string, ids: string[]): Promise<void> {
    await eventually(
      () =>
        expect(Object.fromEntries(ids.map((id) => [id, runningVersion(id)]))).toEqual(
          Object.fromEntries(ids.map((id) => [id, version])),
        ),
      { timeoutMs: 30_000 },
    );
  }

  const webNodes = NODES.filter((node) => node.properties === web).map((node) => node.id);

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await call('POST', '/v1/orgs', { id: 'acme' });
    fleet = await ServiceFleet.register(exchange.url, 'acme', root, NODES, {
      startMs: 150,
      heartbeatMs: 500,
    });
    for (const group of GROUPS) {
      const members = NODES.filter((node) => node.group === group).map((node) => node.id);
      expect((await call('POST', '/v1/orgs/acme/hagroups', { name: group, members })).status).toBe(201);
    }
    await publishVersion('1.0.0');
    expect(
      (
        await call('PUT', '/v1/orgs/acme/deployment-policies/web', {
          project: 'shop',
          service: { org: 'acme', url: 'acme.web', versionRange: '>=1.0.0' },
          constraints: ['role == "web"'],
          placement: { mode: 'all' },
        })
      ).status,
    ).toBeLessThan(300);
    fleet.start();
    await startAgbot();
    await startAgbot();
    await allRun('1.0.0', webNodes);
    startSampling();
  });

  afterAll(async () => {
    clearInterval(sampler);
    await fleet?.stop();
    for (const agbot of agbots) await agbot.close();
    await exchange?.close();
  });

  it('places the policy on every node meant to run it, and on no other', () => {
    for (const id of NODES.map((node) => node.id)) {
      expect([id, runningVersion(id)]).toEqual([id, webNodes.includes(id) ? '1.0.0' : undefined]);
    }
  });

  it('rolls a new version through homogeneous and heterogeneous groups without a group outage', async () => {
    await publishVersion('2.0.0');
    await allRun('2.0.0', webNodes);
    expect(samples).toBeGreaterThan(50);
    expect(outages).toEqual([]);
    for (const id of webNodes) expect([id, fleet.asked(id, 'web')]).toEqual([id, ['1.0.0', '2.0.0']]);
  });

  it('halts a group whose member never brings the new version up, and the group keeps serving', async () => {
    fleet.failVersion('h1', '3.0.0');
    await publishVersion('3.0.0');
    await allRun('3.0.0', ['x1', 'x3', 's1', 's2', 's3']);
    await eventually(
      async () => {
        const rollouts = await http(agbots[0]!.url, 'GET', '/v1/orgs/acme/rollouts', { auth: root });
        const report = rollouts.body.items.find(
          (item: { deploymentPolicy: string }) => item.deploymentPolicy === 'web',
        );
        expect(report.groups.find((group: { group: string }) => group.group === 'homog')).toMatchObject({
          status: 'halted',
          node: 'h1',
        });
      },
      { timeoutMs: 20_000 },
    );
    // The halted group's other members stay on the version that works.
    expect([runningVersion('h2'), runningVersion('h3')]).toEqual(['2.0.0', '2.0.0']);
    expect(fleet.asked('h2', 'web')).toEqual(['1.0.0', '2.0.0']);
    expect(outages).toEqual([]);
  });

  it('finishes a rollout on the standby when the leader dies mid-way, upgrading no member twice', async () => {
    await publishVersion('4.0.0');
    await eventually(() =>
      expect(webNodes.some((id) => fleet.asked(id, 'web').includes('4.0.0'))).toBe(true),
    );
    const leader = agbots.shift()!;
    await leader.close();
    await allRun(
      '4.0.0',
      webNodes.filter((id) => id !== 'h1'),
    );
    for (const id of webNodes) {
      expect([id, fleet.asked(id, 'web').filter((version) => version === '4.0.0')]).toEqual([id, ['4.0.0']]);
    }
    expect(outages).toEqual([]);
  });

  it('skips an offline member instead of waiting for it, and upgrades it when it is back', async () => {
    // h1 would move first; once its heartbeat is older than the agbot's offline limit (2 s) it is skipped.
    fleet.setOffline('h1', true);
    await eventually(
      async () => {
        const node = await call('GET', '/v1/orgs/acme/nodes/h1');
        expect(Date.now() - Date.parse(node.body.status.lastHeartbeat)).toBeGreaterThan(2_500);
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    await publishVersion('5.0.0');
    await allRun(
      '5.0.0',
      webNodes.filter((id) => id !== 'h1'),
    );
    expect(fleet.asked('h1', 'web')).not.toContain('5.0.0');
    fleet.setOffline('h1', false);
    await allRun('5.0.0', ['h1']);
    expect(outages).toEqual([]);
  });

  it('places replicas across racks on nodes compatible both ways, moves one off a cordoned node, and nothing on unrelated changes', async () => {
    expect(
      (
        await call('PUT', '/v1/orgs/acme/deployment-policies/cache', {
          project: 'shop',
          service: { org: 'acme', url: 'acme.web', versionRange: '>=1.0.0' },
          constraints: ['role == "web" || role == "cache"'],
          placement: { mode: 'replicas', replicas: 2 },
        })
      ).status,
    ).toBeLessThan(300);
    const holders = () => NODES.map((node) => node.id).filter((id) => fleet.asked(id, 'cache').length > 0);
    const running = () =>
      NODES.map((node) => node.id).filter((id) =>
        fleet.running(id).some((each) => each.deploymentPolicy === 'cache'),
      );
    await eventually(() => expect(running()).toHaveLength(2), { timeoutMs: 15_000 });
    const first = running();
    const rackOf = (id: string) => NODES.find((node) => node.id === id)!.rack;
    expect(new Set(first.map(rackOf)).size).toBe(2);
    expect(first).not.toContain('c1');
    expect(first).not.toContain('x2');

    // An unrelated change first, then a cordon: changes are handled in order, so had the first
    // moved a replica, the history below would show it.
    const bystander = NODES.map((node) => node.id).find((id) => !first.includes(id) && id !== 'c1')!;
    expect(
      (await call('PATCH', `/v1/orgs/acme/nodes/${bystander}`, { labels: { note: 'unrelated' } })).status,
    ).toBe(200);
    const [cordoned, kept] = first as [string, string];
    expect((await call('PATCH', `/v1/orgs/acme/nodes/${cordoned}`, { schedulable: false })).status).toBe(200);
    await eventually(
      () => {
        expect(running()).toHaveLength(2);
        expect(running()).not.toContain(cordoned);
        expect(running()).toContain(kept);
      },
      { timeoutMs: 15_000 },
    );
    expect(holders().sort()).toEqual([...first, running().find((id) => id !== kept)!].sort());
    expect(fleet.asked(kept, 'cache')).toHaveLength(1);
  });
});
