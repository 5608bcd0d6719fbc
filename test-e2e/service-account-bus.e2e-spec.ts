/**
 * A service account's admin tool on the bus, with the NATS server's authorization on: the key
 * gets NATS credentials of its own from the exchange, that may publish only its org's request
 * subjects; each request carries the key, which the maintenance service checks as HTTP does
 * (scope, org, revocation) and records the session as the account's. Another org's subject is
 * refused by the server, another org's session by the service; a revoked key's requests are
 * refused at once, and its credentials by the server too: the exchange re-signs the account with
 * them revoked, and the server closes their connections. A rotated key's end does the same.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { ORG_REQUEST_SUBJECTS } from '@careen/contracts';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { startServiceInProcess } from '@careen/service';
import {
  bearer,
  eventually,
  http,
  ROOT_PASSWORD,
  seededUser,
  seedExchange,
  useTestInfra,
} from '@careen/testing';
import { connect, credsAuthenticator, headers, type NatsConnection } from '@nats-io/transport-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCareen } from './support/cli-process';

interface Answer {
  statusCode?: number;
  message?: string;
  details?: { code?: string };
  session_id?: string;
  host?: string;
  state?: string;
}

describe("service accounts' own credentials on the bus", () => {
  const infra = useTestInfra({ natsAuth: true });
  const admin = seededUser('acme', 'ada');
  let exchange = '';
  let maintenance = '';
  let key = '';
  let keyId = '';
  let globexSession = '';
  let credentials: {
    credentials: string;
    inboxPrefix: string;
    subjects: { start: string; complete: string };
  };
  let nc: NatsConnection;

  const connectWith = (creds: string, inboxPrefix: string, servers = infra.natsUrl) =>
    connect({
      servers: servers.split(','),
      authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
      inboxPrefix,
      reconnect: false,
    });
  /**
   * The errors the server sent `connection` until it closed. The close itself may carry a socket's
   * error instead (a write that met the closed socket), so the server's word is read from here.
   */
  const serverErrorsUntilClosed = async (connection: NatsConnection) => {
    const errors: string[] = [];
    for await (const status of connection.status()) {
      if (status.type === 'error') errors.push(status.error.message);
    }
    return errors;
  };
  /** A request as the tool makes it; `authorization: ''` sends none. */
  const ask = async (subject: string, body: unknown, authorization = `Bearer ${key}`) => {
    const sent = headers();
    if (authorization) sent.set('authorization', authorization);
    const answer = await nc.request(subject, JSON.stringify(body), { timeout: 10_000, headers: sent });
    return answer.json<Answer>();
  };

  beforeAll(async () => {
    const auth = infra.nats.auth!;
    const bus = { CAREEN_NATS_CREDS: auth.credsFile, CAREEN_LOG_LEVEL: 'error' };
    const started = await startServiceInProcess(exchangeService, infra, {
      ...bus,
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_EXCHANGE_NATS_ACCOUNT: auth.account.publicKey,
      CAREEN_EXCHANGE_NATS_SIGNING_KEY: auth.signingKeySeed,
      CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY: auth.operatorSigningKeySeed!,
      CAREEN_EXCHANGE_NATS_SYSTEM_CREDS: auth.systemCredsFile!,
    });
    exchange = started.url;
    const agbot = await startServiceInProcess(agbotService, infra, {
      ...bus,
      CAREEN_EXCHANGE_URL: exchange,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    maintenance = (
      await startServiceInProcess(maintenanceSessionService, infra, {
        ...bus,
        CAREEN_EXCHANGE_URL: exchange,
        CAREEN_AGBOT_URL: agbot.url,
        CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      })
    ).url;
    await seedExchange(exchange, {
      acme: { users: { ada: 'orgAdmin' }, nodes: ['n1', 'n2'] },
      globex: { users: { gil: 'orgAdmin' }, nodes: ['g1'] },
    });
    await http(exchange, 'POST', '/v1/orgs/acme/service-accounts', {
      auth: admin,
      body: { name: 'ops-tool' },
    });
    const made = await http(exchange, 'POST', '/v1/orgs/acme/service-accounts/ops-tool/keys', {
      auth: admin,
      body: { scopes: ['maintenance:write'] },
    });
    ({ key, id: keyId } = made.body);
    const globex = await http(maintenance, 'POST', '/v1/maintenance', {
      auth: seededUser('globex', 'gil'),
      body: { hosts: ['g1'], host_action: 'external' },
    });
    expect(globex.status).toBe(201);
    globexSession = globex.body.session_id;
  });

  // Each test connects with new credentials, as a tool renews them.
  beforeEach(async () => {
    if (!key || expect.getState().currentTestName?.includes('issues a key')) return;
    const issued = await http(exchange, 'POST', '/v1/auth/bus-credentials', { auth: bearer(key) });
    credentials = issued.body;
    await nc?.close();
    nc = await connectWith(credentials.credentials, credentials.inboxPrefix);
  });
  afterAll(() => nc?.close());

  it("issues a key NATS credentials for its org's subjects, and no one else", async () => {
    const issued = await http(exchange, 'POST', '/v1/auth/bus-credentials', { auth: bearer(key) });
    expect(issued.status).toBe(200);
    credentials = issued.body;
    expect(credentials.subjects).toEqual({
      start: ORG_REQUEST_SUBJECTS.start('acme'),
      complete: ORG_REQUEST_SUBJECTS.complete('acme'),
    });
    expect(credentials.credentials).toContain('BEGIN USER NKEY SEED');
    // CAREEN_BUS_CREDENTIALS_TTL_SECONDS, ten minutes by default.
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);

    const readOnly = await http(exchange, 'POST', '/v1/orgs/acme/service-accounts/ops-tool/keys', {
      auth: admin,
      body: { scopes: ['nodes:read'] },
    });
    const refusals = await Promise.all([
      http(exchange, 'POST', '/v1/auth/bus-credentials', { auth: bearer(readOnly.body.key) }),
      http(exchange, 'POST', '/v1/auth/bus-credentials', { auth: admin }),
    ]);
    expect(refusals.map((answer) => answer.status)).toEqual([403, 403]);
    expect(refusals[0]!.body.message).toContain('lacks the scope maintenance:write');
    expect(refusals[1]!.body.message).toContain("issued to service accounts' keys");

    // The same from careen, with the key in CAREEN_API_KEY, as a tool's start-up script gets it.
    const home = await mkdtemp(join(tmpdir(), 'careen-bus-'));
    const cli = await runCareen(['service-account', 'bus-credentials'], home, {
      HOME: home,
      CAREEN_API_KEY: key,
      CAREEN_EXCHANGE_URL: exchange,
    });
    await rm(home, { recursive: true, force: true });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^-----BEGIN NATS USER JWT-----[\s\S]*NKEY SEED[\s\S]*\n$/);
    expect(cli.stderr).toContain(`publish on ${ORG_REQUEST_SUBJECTS.start('acme')}`);
  });

  it("starts a session of its own org and reports its host done, recorded as the account's", async () => {
    const started = await ask(credentials.subjects.start, { hosts: ['n1'], host_action: 'external' });
    expect(started).toMatchObject({ session_id: expect.any(String), state: expect.any(String) });
    const session = await http(maintenance, 'GET', `/v1/maintenance/${started.session_id}`, { auth: admin });
    expect(session.body).toMatchObject({ org: 'acme', created_by: 'acme/sa:ops-tool' });
    // Once n1 is in maintenance (until then: 409 naming why), the tool reports it done.
    const done = await eventually(
      async () => {
        const answer = await ask(credentials.subjects.complete, {
          session_id: started.session_id,
          host: 'n1',
        });
        expect(answer).toMatchObject({ session_id: started.session_id, host: 'n1' });
        return answer;
      },
      { timeoutMs: 30_000 },
    );
    expect(done.state).toEqual(expect.any(String));
    await eventually(async () => {
      const ended = await http(maintenance, 'GET', `/v1/maintenance/${started.session_id}`, { auth: admin });
      expect(ended.body.state).toBe('MAINTENANCE_DONE');
      expect(JSON.stringify(ended.body.timeline)).toContain('acme/sa:ops-tool');
    });
    // The audit trail names the account and its key for what the bus requests changed.
    await eventually(async () => {
      const trail = await http(exchange, 'GET', '/v1/orgs/acme/audit?actor=acme/sa:ops-tool&limit=100', {
        auth: admin,
      });
      const records = (trail.body.items as { service: string; via: string }[]).filter(
        (record) => record.service === 'maintenance-session',
      );
      expect(records.length).toBeGreaterThanOrEqual(2);
      expect(records.every((record) => record.via === `key:${keyId}`)).toBe(true);
    });
  });

  it("cannot publish on another org's subject: the server refuses it", async () => {
    await expect(
      nc.request(ORG_REQUEST_SUBJECTS.start('globex'), JSON.stringify({ hosts: ['g1'] }), { timeout: 5_000 }),
    ).rejects.toThrow(/Permissions Violation/);
    await expect(
      nc.request('careen.requests.maintenance.start', JSON.stringify({ org: 'globex', hosts: ['g1'] }), {
        timeout: 5_000,
      }),
    ).rejects.toThrow(/Permissions Violation/);
  });

  it("cannot complete another org's host, nor name another org, nor go without its key", async () => {
    const foreign = await ask(credentials.subjects.complete, { session_id: globexSession, host: 'g1' });
    expect(foreign).toMatchObject({
      statusCode: 403,
      message: expect.stringContaining('no access to org globex'),
    });
    const otherOrg = await ask(credentials.subjects.start, { org: 'globex', hosts: ['g1'] });
    expect(otherOrg).toMatchObject({ statusCode: 400, details: { code: 'maintenance.org-mismatch' } });
    const anonymous = await ask(credentials.subjects.start, { hosts: ['n2'] }, '');
    expect(anonymous).toMatchObject({ statusCode: 401 });
    const bad = await ask(credentials.subjects.complete, { session_id: 'nope', host: 'n1' });
    expect(bad).toMatchObject({ statusCode: 400, message: expect.stringContaining('session_id') });
  });

  it("has the server close a rotated key's connections once the overlap is over", async () => {
    const said = serverErrorsUntilClosed(nc);
    const rotated = await http(
      exchange,
      'POST',
      `/v1/orgs/acme/service-accounts/ops-tool/keys/${keyId}/rotate`,
      {
        auth: admin,
        body: { overlapSeconds: 1 },
      },
    );
    expect(rotated.status).toBe(201);
    ({ key, id: keyId } = rotated.body.key);
    // Once the overlap is over, the old key's bus user is revoked in the exchange's next round
    // (every ten seconds), with no request of anyone's.
    expect(await said).toContainEqual(expect.stringMatching(/Authentication Revoked/));
    await expect(connectWith(credentials.credentials, credentials.inboxPrefix)).rejects.toThrow(
      /Authorization Violation/,
    );
  }, 30_000);

  it('refuses a revoked key at once, and the server its credentials too', async () => {
    const started = await ask(credentials.subjects.start, { hosts: ['n2'], host_action: 'external' });
    expect(started).toMatchObject({ session_id: expect.any(String) });
    const said = serverErrorsUntilClosed(nc);
    const revoked = await http(exchange, 'DELETE', `/v1/orgs/acme/service-accounts/ops-tool/keys/${keyId}`, {
      auth: admin,
    });
    expect(revoked.status).toBe(200);
    // By the answer, the server has the user revoked: it closes the connection and lets it in no
    // more, though the credentials would last ten minutes yet; on a cluster, no member does.
    expect(await said).toContainEqual(expect.stringMatching(/Authentication Revoked/));
    for (const server of infra.natsUrl.split(',')) {
      await expect(connectWith(credentials.credentials, credentials.inboxPrefix, server)).rejects.toThrow(
        /Authorization Violation/,
      );
    }
    // And the service refuses the key itself, whoever carries it on the bus.
    nc = await connectWith(infra.nats.auth!.serviceCreds, '_INBOX');
    const refused = await ask(credentials.subjects.start, { hosts: ['n2'], host_action: 'external' });
    expect(refused).toMatchObject({ statusCode: 401, message: expect.stringContaining('revoked') });
  });
});
