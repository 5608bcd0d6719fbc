/**
 * Agent-upgrade grants released by what nodes and admins do at the exchange, through the real
 * change stream: a real exchange and agbot in process, nodes in HA groups asking the agbot with
 * their own credentials, and the management status, group membership and node deletions that
 * end (or renew) a grant written at the exchange only.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { cloudEventHeaders, connectBus, type BusConnection } from '@careen/bus';
import { NodesSeen } from '@careen/contracts';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, readStream, useTestInfra, type Credentials } from '@careen/testing';
import { DataSource } from 'typeorm';
import { publishAgentPackage } from './support/agent-packages';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const NMP = 'agents-2';
/** Far longer than any test here: a release seen within it came from the monitor, not the lease. */
const LEASE_SECONDS = 600;
/** What "promptly" means for a release driven by the change stream. */
const PROMPTLY = { timeoutMs: 5_000 };

const GROUPS: Record<string, string[]> = {
  done: ['ok1', 'ok2'],
  broken: ['bad1', 'bad2'],
  undone: ['back1', 'back2'],
  alive: ['live1', 'live2'],
  polling: ['poll1', 'poll2'],
  moving: ['move1', 'move2'],
  doomed: ['gone1', 'gone2'],
  dissolved: ['dis1', 'dis2'],
  /** Asked first, to know that the agbot's mirror holds the groups. */
  ready: ['ready1'],
};
const nodeCredentials = (node: string): Credentials => basic('acme', node, `${node}-token-0123456789`);

interface Holder {
  node: string;
  haGroup: string | null;
  managementPolicy: string | null;
  grantedAt: string;
  leaseExpiresAt: string;
  kind: string;
}

describe('agbot: agent-upgrade grants released from exchange changes', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let agbot: InProcessService<AgbotConfig>;
  let bus: BusConnection;

  const atExchange = (method: string, path: string, body?: object, auth: Credentials = root) =>
    http(exchange.url, method, path, { auth, ...(body ? { body } : {}) });
  const askUpgrade = (node: string) =>
    http(agbot.url, 'POST', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: nodeCredentials(node),
      body: { managementPolicy: NMP },
    });
  const reportStatus = (node: string, status: string, nmp = NMP) =>
    atExchange(
      'PUT',
      `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`,
      { status },
      nodeCredentials(node),
    );
  const holders = async (): Promise<Holder[]> => {
    const answer = await http(agbot.url, 'GET', '/v1/orgs/acme/upgrades', { auth: root });
    expect(answer.status).toBe(200);
    return answer.body.items;
  };
  const holderOf = async (group: string) => (await holders()).filter((holder) => holder.haGroup === group);

  /** The reasons published with the node's first `count` releases on CAREEN_AGBOT. */
  async function releaseReasons(node: string, count: number): Promise<string[]> {
    const messages = await readStream(bus, 'CAREEN_AGBOT', {
      count,
      filterSubject: `careen.agbot.upgrades.acme.${node}.released`,
      timeoutMs: 5_000,
    });
    return messages.map((message) => message.body.reason);
  }

  /** The first member is granted and its peer refused, naming it. */
  async function grantFirst(group: string): Promise<void> {
    const [first, second] = GROUPS[group]!;
    const granted = await askUpgrade(first!);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ node: first, haGroup: group, managementPolicy: NMP });
    const refused = await askUpgrade(second!);
    expect(refused.status).toBe(409);
    expect(refused.body.details.holder.node).toBe(first);
  }

  /** The peer is granted once the holder's slot is gone, well before its lease could have run out. */
  async function peerGrantedPromptly(group: string): Promise<void> {
    const [first, second] = GROUPS[group]!;
    await eventually(
      async () => expect((await holderOf(group)).map((holder) => holder.node)).toEqual([]),
      PROMPTLY,
    );
    const granted = await askUpgrade(second!);
    expect(granted.status).toBe(200);
    expect(granted.body.node).toBe(second);
    expect((await holderOf(group)).map((holder) => holder.node)).toEqual([second]);
    expect(await releaseReasons(first!, 1)).toHaveLength(1);
  }

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    expect((await atExchange('POST', '/v1/orgs', { id: 'acme' })).status).toBe(201);
    for (const node of Object.values(GROUPS).flat()) {
      const registered = await atExchange('PUT', `/v1/orgs/acme/nodes/${node}`, {
        token: `${node}-token-0123456789`,
      });
      expect(registered.status).toBeLessThan(300);
    }
    for (const [name, members] of Object.entries(GROUPS)) {
      expect((await atExchange('POST', '/v1/orgs/acme/hagroups', { name, members })).status).toBe(201);
    }
    // An enabled upgrade needs its package published.
    await publishAgentPackage(exchange.url, root, '2.0.0');
    const policy = await atExchange('PUT', `/v1/orgs/acme/management-policies/${NMP}`, {
      nodes: Object.values(GROUPS).flat(),
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0' },
    });
    expect(policy.status).toBeLessThan(300);
    agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      CAREEN_UPGRADE_LEASE_SECONDS: String(LEASE_SECONDS),
    });
    bus = await connectBus({ url: infra.natsUrl, name: 'agbot-upgrades-e2e' });
    // The agbot decides from its mirror: wait until its resync has brought the groups in.
    await eventually(async () => {
      const answer = await askUpgrade('ready1');
      expect([answer.status, answer.body.haGroup]).toEqual([200, 'ready']);
    });
  });

  afterAll(async () => {
    await bus?.close();
    await agbot?.close();
    await exchange?.close();
  });

  it.each([
    ['successful', 'done'],
    ['rolled-back', 'undone'],
  ])('releases a holder whose status for its policy turns %s, and grants its peer', async (status, group) => {
    await grantFirst(group);
    const [first] = GROUPS[group]!;
    expect((await reportStatus(first!, status)).status).toBe(200);
    await peerGrantedPromptly(group);
    expect(await releaseReasons(first!, 1)).toEqual(['terminal-status']);
  });

  it('keeps a holder that failed until it has rolled back, then grants its peer', async () => {
    await grantFirst('broken');
    const [first, second] = GROUPS.broken!;
    expect((await reportStatus(first!, 'failed')).status).toBe(200);
    await eventually(async () =>
      expect((await holderOf('broken'))[0]).toMatchObject({ node: first, halted: true }),
    );
    expect((await askUpgrade(second!)).body.details.holder).toMatchObject({ node: first, halted: true });
    expect((await reportStatus(first!, 'rolled-back')).status).toBe(200);
    await peerGrantedPromptly('broken');
    expect(await releaseReasons(first!, 1)).toEqual(['healthy']);
  });

  it('renews the lease on a status in progress, and keeps the holder on a status of another policy', async () => {
    await grantFirst('alive');
    const leaseOf = async () => {
      const [holder] = await holderOf('alive');
      expect(holder).toMatchObject({ node: 'live1', managementPolicy: NMP });
      return { grantedAt: holder!.grantedAt, leaseEnds: Date.parse(holder!.leaseExpiresAt) };
    };
    const granted = await leaseOf();
    expect((await reportStatus('live1', 'initiated')).status).toBe(200);
    const renewed = await eventually(async () => {
      const lease = await leaseOf();
      expect(lease.grantedAt).toBe(granted.grantedAt);
      expect(lease.leaseEnds).toBeGreaterThan(granted.leaseEnds);
      return lease;
    }, PROMPTLY);

    const other = await atExchange('PUT', '/v1/orgs/acme/management-policies/other-policy', {
      nodes: ['live1'],
      agentUpgradePolicy: { atLeastVersion: '3.0.0' },
    });
    expect(other.status).toBeLessThan(300);
    expect((await reportStatus('live1', 'successful', 'other-policy')).status).toBe(200);
    // Changes are handled in stream order: once this renewal shows, the status before it was handled too.
    expect((await reportStatus('live1', 'downloaded')).status).toBe(200);
    await eventually(async () => {
      const lease = await leaseOf();
      expect(lease.grantedAt).toBe(granted.grantedAt);
      expect(lease.leaseEnds).toBeGreaterThan(renewed.leaseEnds);
    }, PROMPTLY);
    expect((await askUpgrade('live2')).status).toBe(409);
  });

  it("renews the lease and moves the mirror's heartbeat on a poll, and drops unreadable nodes-seen messages", async () => {
    await grantFirst('polling');
    const [holder] = await holderOf('polling');
    const granted = Date.parse(holder!.leaseExpiresAt);
    // Unreadable messages on the subject first: no CloudEvents headers, a wrong payload.
    const subject = NodesSeen.subject('acme');
    bus.nc.publish(subject, new TextEncoder().encode('{"org":"acme"'));
    bus.nc.publish(subject, new TextEncoder().encode(JSON.stringify({ org: 'acme', nodes: 'poll1' })), {
      headers: cloudEventHeaders({
        id: 'poisoned-1',
        type: NodesSeen.type,
        source: 'test',
        time: new Date().toISOString(),
      }),
    });
    const head = (await atExchange('GET', '/v1/orgs/acme/changes/head')).body.lastId as number;
    const poll = await http(exchange.url, 'GET', `/v1/orgs/acme/changes?since=${head}&wait=0`, {
      auth: nodeCredentials('poll1'),
    });
    expect(poll.status).toBe(200);
    await eventually(async () => {
      const beat = (await atExchange('GET', '/v1/orgs/acme/nodes/poll1')).body.status.lastHeartbeat as string;
      const [renewed] = await holderOf('polling');
      expect(renewed).toMatchObject({ node: 'poll1', grantedAt: holder!.grantedAt });
      expect(Date.parse(renewed!.leaseExpiresAt)).toBeGreaterThan(granted);
      const [mirrored] = await agbot.app
        .get(DataSource)
        .query(
          `SELECT data -> 'status' ->> 'lastHeartbeat' AS beat FROM agbot.nodes WHERE org = 'acme' AND id = 'poll1'`,
        );
      expect(mirrored.beat).toBe(beat);
    }, PROMPTLY);
    expect((await askUpgrade('poll2')).status).toBe(409);
  });

  it('releases a holder removed from its group, and grants a remaining member', async () => {
    await grantFirst('moving');
    const replaced = await atExchange('PUT', '/v1/orgs/acme/hagroups/moving', { members: ['move2'] });
    expect(replaced.status).toBe(200);
    await peerGrantedPromptly('moving');
    expect(await releaseReasons('move1', 1)).toEqual(['left-group']);
  });

  it('releases a holder whose node is deleted, and grants its peer', async () => {
    await grantFirst('doomed');
    expect((await atExchange('DELETE', '/v1/orgs/acme/nodes/gone1')).status).toBe(204);
    await peerGrantedPromptly('doomed');
    expect(await releaseReasons('gone1', 1)).toEqual(['node-deleted']);
  });

  it('releases a holder whose group is deleted', async () => {
    await grantFirst('dissolved');
    expect((await atExchange('DELETE', '/v1/orgs/acme/hagroups/dissolved')).status).toBe(204);
    await eventually(async () => expect(await holderOf('dissolved')).toEqual([]), PROMPTLY);
    expect(await releaseReasons('dis1', 1)).toEqual(['left-group']);
    // Outside any group now, each member is granted on its own.
    expect((await askUpgrade('dis2')).body).toMatchObject({ node: 'dis2', haGroup: null });
  });
});
