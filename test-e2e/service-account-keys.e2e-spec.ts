/**
 * A service account's key used as an admin tool uses it, across every hub service and two
 * exchange replicas: each service takes it within its scopes and refuses it outside them naming
 * the scope it lacks; a rotated key's predecessor keeps working for the overlap; and a key
 * revoked at one exchange replica is refused from that moment by the other replica and by every
 * other service, with no cache to wait out.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { startServiceInProcess } from '@careen/service';
import { bearer, http, ROOT_PASSWORD, seededUser, seedExchange, useTestInfra } from '@careen/testing';

describe("service accounts' keys across services and replicas", () => {
  const infra = useTestInfra();
  const admin = seededUser('acme', 'ada');
  const urls: Record<'exchangeA' | 'exchangeB' | 'agbot' | 'orchestrator' | 'maintenance', string> = {
    exchangeA: '',
    exchangeB: '',
    agbot: '',
    orchestrator: '',
    maintenance: '',
  };
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const [a, b] = [
      await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD }),
      await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD }),
    ];
    const agbot = await startServiceInProcess(agbotService, infra, { CAREEN_EXCHANGE_URL: b.url });
    const [orchestrator, maintenance] = await Promise.all([
      startServiceInProcess(deploymentOrchestratorService, infra, {
        CAREEN_EXCHANGE_URL: a.url,
        CAREEN_AGBOT_URL: agbot.url,
      }),
      startServiceInProcess(maintenanceSessionService, infra, {
        CAREEN_EXCHANGE_URL: b.url,
        CAREEN_AGBOT_URL: agbot.url,
      }),
    ]);
    Object.assign(urls, {
      exchangeA: a.url,
      exchangeB: b.url,
      agbot: agbot.url,
      orchestrator: orchestrator.url,
      maintenance: maintenance.url,
    });
    closers.push(
      () => maintenance.close(),
      () => orchestrator.close(),
      () => agbot.close(),
      () => b.close(),
      () => a.close(),
    );
    await seedExchange(a.url, { acme: { users: { ada: 'orgAdmin' }, nodes: ['n1'] } });
    const account = await http(a.url, 'POST', '/v1/orgs/acme/service-accounts', {
      auth: admin,
      body: { name: 'release-bot' },
    });
    expect(account.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    for (const close of closers) await close();
  });

  const makeKey = async (scopes: string[]) => {
    const made = await http(urls.exchangeA, 'POST', '/v1/orgs/acme/service-accounts/release-bot/keys', {
      auth: admin,
      body: { scopes },
    });
    expect(made.status).toBe(201);
    return made.body as { id: string; key: string };
  };
  /** What each service answers the key on a read it needs `<resource>:read` for. */
  const reads = (key: string) =>
    Promise.all([
      http(urls.exchangeB, 'GET', '/v1/orgs/acme/hagroups', { auth: bearer(key) }),
      http(urls.agbot, 'GET', '/v1/orgs/acme/upgrades', { auth: bearer(key) }),
      http(urls.orchestrator, 'GET', '/v1/rollouts', { auth: bearer(key) }),
      http(urls.maintenance, 'GET', '/v1/maintenance', { auth: bearer(key) }),
    ]);

  it('is taken by every service within its scopes, and refused outside them naming the scope', async () => {
    const { id, key } = await makeKey([
      'hagroups:read',
      'upgrades:read',
      'rollouts:read',
      'maintenance:read',
    ]);
    for (const url of Object.values(urls))
      expect((await http(url, 'GET', '/v1/whoami', { auth: bearer(key) })).body).toMatchObject({
        kind: 'service',
        account: 'release-bot',
        key: id,
      });
    expect((await reads(key)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);

    const refusals = await Promise.all([
      http(urls.orchestrator, 'POST', '/v1/rollouts', { auth: bearer(key), body: {} }),
      http(urls.maintenance, 'POST', '/v1/maintenance', { auth: bearer(key), body: {} }),
      http(urls.agbot, 'POST', '/v1/orgs/acme/upgrade-groups/g/reset', { auth: bearer(key), body: {} }),
      http(urls.agbot, 'GET', '/v1/orgs/acme/soaks', { auth: bearer(key) }),
    ]);
    expect(refusals.map((answer) => [answer.status, answer.body.message])).toEqual(
      ['rollouts:write', 'maintenance:write', 'upgrades:write', 'disruption:read'].map((scope) => [
        403,
        `key ${id} of acme/sa:release-bot lacks the scope ${scope}`,
      ]),
    );
  });

  it('keeps the previous key working for the overlap of a rotation', async () => {
    const first = await makeKey(['rollouts:read']);
    const rotated = await http(
      urls.exchangeB,
      'POST',
      `/v1/orgs/acme/service-accounts/release-bot/keys/${first.id}/rotate`,
      { auth: admin, body: { overlapSeconds: 300 } },
    );
    const second = rotated.body.key as { key: string };
    for (const key of [first.key, second.key])
      expect((await http(urls.orchestrator, 'GET', '/v1/rollouts', { auth: bearer(key) })).status).toBe(200);
  });

  it('refuses a key revoked at one exchange replica at once everywhere', async () => {
    const { id, key } = await makeKey([
      'hagroups:read',
      'upgrades:read',
      'rollouts:read',
      'maintenance:read',
    ]);
    expect((await reads(key)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const revoked = await http(
      urls.exchangeA,
      'DELETE',
      `/v1/orgs/acme/service-accounts/release-bot/keys/${id}`,
      {
        auth: admin,
      },
    );
    expect(revoked.status).toBe(200);
    const after = await reads(key);
    expect(after.map((answer) => [answer.status, answer.body.message])).toEqual(
      Array.from({ length: 4 }, () => [401, `key ${id} was revoked`]),
    );
  });
});
