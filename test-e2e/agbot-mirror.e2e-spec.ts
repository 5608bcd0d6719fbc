/**
 * The agbot's mirror follows the exchange: a full resync at start, then every change from
 * CAREEN_CHANGES; a standby replica takes over the consumer when the leader stops.
 */
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra, withClient } from '@careen/testing';
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { ExchangeMirror } from '@careen/agbot/src/mirror/exchange-mirror';
import { DataSource } from 'typeorm';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);

describe('agbot mirror of the exchange', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const agbots: InProcessService<AgbotConfig>[] = [];

  const call = (method: string, path: string, body?: object) =>
    http(exchange.url, method, path, { auth: root, ...(body ? { body } : {}) });

  async function startAgbot(): Promise<InProcessService<AgbotConfig>> {
    const agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    agbots.push(agbot);
    return agbot;
  }

  async function mirrored(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    return withClient(infra.databaseUrl, async (client) => (await client.query(sql, params)).rows);
  }

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await call('POST', '/v1/orgs', { id: 'acme' });
    for (const id of ['n1', 'n2', 'n3']) {
      expect((await call('PUT', `/v1/orgs/acme/nodes/${id}`, { rack: `rack-${id}` })).status).toBeLessThan(
        300,
      );
    }
    await call('PUT', '/v1/orgs/acme/services/web', {
      url: 'web',
      version: '1.0.0',
      arch: 'amd64',
      runtime: {},
    });
    // History the stream replays to a new agbot after its resync: a node moved and moved back,
    // and a node created and deleted again.
    await call('PATCH', '/v1/orgs/acme/nodes/n1', { rack: 'rack-moved' });
    await call('PATCH', '/v1/orgs/acme/nodes/n1', { rack: 'rack-n1' });
    await call('PUT', '/v1/orgs/acme/nodes/gone', {});
    await call('DELETE', '/v1/orgs/acme/nodes/gone');
    // Published, so the agbot's resync starts with all of it on the stream.
    await eventually(async () =>
      expect(
        await withClient(infra.databaseUrl, async (client) =>
          Number(
            (await client.query('SELECT count(*) FROM exchange.outbox WHERE published_at IS NULL')).rows[0]
              .count,
          ),
        ),
      ).toBe(0),
    );
  });

  afterAll(async () => {
    for (const agbot of agbots) await agbot.close();
    await exchange.close();
  });

  it('starts from a full resync of what the exchange already holds', async () => {
    await startAgbot();
    await eventually(async () => {
      const nodes = await mirrored("SELECT id, data ->> 'rack' AS rack FROM agbot.nodes ORDER BY id");
      expect(nodes).toEqual([
        { id: 'n1', rack: 'rack-n1' },
        { id: 'n2', rack: 'rack-n2' },
        { id: 'n3', rack: 'rack-n3' },
      ]);
      expect(await mirrored("SELECT id FROM agbot.mirrored_resources WHERE resource = 'service'")).toEqual([
        { id: 'web' },
      ]);
    });
  });

  it('does not let the changes the stream replays after a resync roll the snapshot back', async () => {
    const { lastId } = (await call('GET', '/v1/orgs/acme/changes?since=0&limit=1000')).body as {
      lastId: number;
    };
    // The replayed node changes (all older than the snapshot) left the resynced rows alone.
    const stamps = await mirrored('SELECT DISTINCT change_id FROM agbot.nodes');
    expect(stamps).toHaveLength(1);
    const asOf = Number(stamps[0]!.change_id);
    expect(asOf).toBeGreaterThanOrEqual(lastId);
    // Not even a node the snapshot no longer has comes back from a change older than it.
    const mirror = agbots[0]!.app.get(ExchangeMirror);
    const revived = await agbots[0]!.app.get(DataSource).transaction((manager) =>
      mirror.apply(
        manager,
        {
          org: 'acme',
          resource: 'node',
          resourceId: 'gone',
          operation: 'updated',
          changedAt: new Date().toISOString(),
          data: { id: 'gone', org: 'acme' },
        },
        asOf,
      ),
    );
    expect(revived).toBe(false);
    expect(await mirrored("SELECT id FROM agbot.nodes WHERE id = 'gone'")).toEqual([]);
  });

  it('follows group membership, node changes and deletions from the change stream', async () => {
    expect(
      (await call('POST', '/v1/orgs/acme/hagroups', { name: 'pair', members: ['n1', 'n2'] })).status,
    ).toBe(201);
    await call('PATCH', '/v1/orgs/acme/nodes/n3', { rack: 'rack-9' });
    await call('DELETE', '/v1/orgs/acme/nodes/n2');
    await eventually(async () => {
      expect(await mirrored('SELECT id, ha_group FROM agbot.nodes ORDER BY id')).toEqual([
        { id: 'n1', ha_group: 'pair' },
        { id: 'n3', ha_group: null },
      ]);
      expect(await mirrored("SELECT data ->> 'rack' AS rack FROM agbot.nodes WHERE id = 'n3'")).toEqual([
        { rack: 'rack-9' },
      ]);
    });
  });

  it('hands the change stream to a standby when the leader stops', async () => {
    await startAgbot();
    const leader = agbots[0]!;
    await leader.close();
    agbots.shift();
    await call('PUT', '/v1/orgs/acme/nodes/n4', {});
    await eventually(
      async () => {
        expect(await mirrored("SELECT id FROM agbot.nodes WHERE id = 'n4'")).toEqual([{ id: 'n4' }]);
      },
      { timeoutMs: 15_000 },
    );
  });
});
