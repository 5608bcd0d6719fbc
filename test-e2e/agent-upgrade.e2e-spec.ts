/**
 * A real agent process against the real exchange upgrades itself with the tarball strategy:
 * the new version runs after its restart and the old one stays on disk; a package that fails
 * its health check is rolled back and not tried again; a package whose hash or signature does
 * not match is never installed; a restart in the middle of a download resumes it with Range,
 * and one in the middle of an install resumes it, or rolls it back when the new version
 * turns out unhealthy.
 */
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra, withClient } from '@careen/testing';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildPackage,
  signingPair,
  signPackage,
  type PackageFixture,
} from '@careen/agent/src/testing/agent-package.fixture';
import { superviseAgent, type SupervisedAgent } from '@careen/agent/src/testing/agent-process.fixture';
import { TarballInstallStrategy } from '@careen/agent/src/upgrade/tarball-install.strategy';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const ada = basic('acme', 'ada', 'ada-password');
const NODE_TOKEN = 'edge-1-node-token-secret';
const NMP = 'agent-upgrade';
/**
 * How fast the agent started first downloads: slow enough for a 2 MiB package to be cut
 * part-way by a restart, and no delay for the few hundred bytes of the other packages.
 */
const DOWNLOAD_BYTES_PER_SECOND = 256 * 1024;

describe('agent upgrades with the tarball strategy (real process, real exchange)', () => {
  const infra = useTestInfra();
  const trusted = signingPair();
  const stranger = signingPair();
  let exchange: InProcessService<ExchangeConfig>;
  let dir: string;
  let agent: SupervisedAgent | undefined;

  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: ada, body });
  const stateFile = () => join(dir, 'state', 'state.json');
  const readState = async () => JSON.parse(await readFile(stateFile(), 'utf8')) as Record<string, unknown>;
  const installDir = () => join(dir, 'install');
  const managementStatus = async () =>
    (await call('GET', `/v1/orgs/acme/nodes/edge-1/managementStatus/${NMP}`)).body as Record<string, unknown>;
  const agentVersion = async () =>
    (
      (await call('GET', '/v1/orgs/acme/nodes/edge-1')).body as {
        status?: { agentVersion?: Record<string, unknown> };
      }
    ).status?.agentVersion;

  async function publish(fixture: PackageFixture, signer = trusted): Promise<Buffer> {
    const bytes = await buildPackage(fixture);
    const answer = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: root,
      rawBody: bytes,
      headers: { 'content-type': 'application/gzip', 'x-careen-signature': signPackage(bytes, signer) },
    });
    expect(answer.status).toBe(201);
    return bytes;
  }

  async function upgradeTo(version: string): Promise<number> {
    const answer = await call('PUT', `/v1/orgs/acme/management-policies/${NMP}`, {
      nodes: ['edge-1'],
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: version, start: 'now', duration: 0, action: 'install' },
    });
    expect(answer.status).toBeLessThan(300);
    return changeIdOf(String((answer.body as { lastUpdated: string }).lastUpdated));
  }

  /** The feed id of the policy change with this lastUpdated, once the exchange has published it. */
  async function changeIdOf(lastUpdated: string): Promise<number> {
    return eventually(async () => {
      let since = 0;
      for (;;) {
        const page = (await call('GET', `/v1/orgs/acme/changes?since=${since}&limit=1000`)).body as {
          changes: { id: number; resource: string; data?: { lastUpdated?: string } }[];
          lastId: number;
        };
        const found = page.changes.find(
          (change) => change.resource === 'managementPolicy' && change.data?.lastUpdated === lastUpdated,
        );
        if (found) return found.id;
        if (page.changes.length === 0) throw new Error('the policy change is not on the feed yet');
        since = page.lastId;
      }
    });
  }

  function startAgent(extra: Record<string, string> = {}): SupervisedAgent {
    agent = superviseAgent({
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGENT_ORG: 'acme',
      CAREEN_AGENT_NODE_ID: 'edge-1',
      CAREEN_AGENT_TOKEN: NODE_TOKEN,
      CAREEN_AGENT_STATE_DIR: join(dir, 'state'),
      CAREEN_AGENT_INSTALL_DIR: installDir(),
      CAREEN_AGENT_TRUSTED_KEYS: trusted.publicKeyBase64,
      CAREEN_AGENT_POLL_SECONDS: '5',
      CAREEN_AGENT_RUNTIME: 'simulated',
      ...extra,
    });
    return agent;
  }

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
    await call('PUT', '/v1/orgs/acme/nodes/edge-1', { token: NODE_TOKEN });
    dir = await mkdtemp(join(tmpdir(), 'careen-agent-upgrade-'));
    // The node was installed with 1.0.0, the way an installer would put it in place.
    const first = join(dir, 'agent-1.0.0.tar.gz');
    await writeFile(first, await publish({ version: '1.0.0' }));
    const strategy = new TarballInstallStrategy(installDir());
    await strategy.install('1.0.0', first);
    await strategy.activate('1.0.0');
    startAgent({ CAREEN_AGENT_DOWNLOAD_BYTES_PER_SECOND: String(DOWNLOAD_BYTES_PER_SECOND) });
  });

  afterAll(async () => {
    await agent?.stop();
    await exchange.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('upgrades itself: the new version runs after a restart and the old one is kept', async () => {
    await publish({ version: '2.0.0', healthCheck: 'exit 0' });
    await upgradeTo('2.0.0');

    await eventually(
      async () => expect(await managementStatus()).toMatchObject({ status: 'successful', version: '2.0.0' }),
      {
        timeoutMs: 30_000,
      },
    );
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '2.0.0'));
    expect(existsSync(join(installDir(), 'versions', '1.0.0', 'package.json'))).toBe(true);
    expect(await agentVersion()).toMatchObject({ package: '2.0.0', failed: null });
    expect(agent!.runs()).toBe(2);
    expect(agent!.messages()).toEqual(
      expect.arrayContaining(['restarting on the new version', 'agent restarting', 'upgrade successful']),
    );
    expect((await readState()).upgrade).toBeUndefined();
  });

  it('rolls back a version whose health check fails, keeps the old one running and does not try it again', async () => {
    await publish({ version: '3.0.0', healthCheck: 'echo "port 8443 does not answer" >&2; exit 1' });
    await upgradeTo('3.0.0');

    await eventually(
      async () => expect(await managementStatus()).toMatchObject({ status: 'rolled-back', version: '3.0.0' }),
      {
        timeoutMs: 30_000,
      },
    );
    expect(String((await managementStatus()).error)).toContain('port 8443 does not answer');
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '2.0.0'));
    expect(existsSync(join(installDir(), 'versions', '3.0.0'))).toBe(false);
    expect(await agentVersion()).toMatchObject({ package: '2.0.0', failed: '3.0.0' });

    // Something else changes; once the agent has read past it, 3.0.0 has still not been tried again.
    const later = await upgradeTo('3.0.0');
    await eventually(async () =>
      expect(Number((await readState()).changeCursor)).toBeGreaterThanOrEqual(later),
    );
    expect(await managementStatus()).toMatchObject({
      version: '3.0.0',
      status: expect.stringMatching(/rolled-back|precheck-failed/),
    });
    expect(agent!.messages().filter((message) => message === 'restarting on the new version')).toHaveLength(
      2,
    );
  });

  it("tries a failed version again when an admin sets the policy's status to reset", async () => {
    const restarts = () =>
      agent!.messages().filter((message) => message === 'restarting on the new version').length;
    const before = restarts();
    expect(
      (await call('PUT', `/v1/orgs/acme/nodes/edge-1/managementStatus/${NMP}`, { status: 'reset' })).status,
    ).toBe(200);

    await eventually(() => expect(restarts()).toBe(before + 1), { timeoutMs: 30_000 });
    await eventually(
      async () => expect(await managementStatus()).toMatchObject({ status: 'rolled-back', version: '3.0.0' }),
      {
        timeoutMs: 30_000,
      },
    );
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '2.0.0'));
  });

  it('never installs a package signed by an unknown key', async () => {
    await publish({ version: '4.0.0' }, stranger);
    await upgradeTo('4.0.0');

    await eventually(async () =>
      expect(await managementStatus()).toMatchObject({ status: 'precheck-failed', version: '4.0.0' }),
    );
    expect(String((await managementStatus()).error)).toContain('signature');
    expect(existsSync(join(installDir(), 'versions', '4.0.0'))).toBe(false);
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '2.0.0'));
  });

  it('never installs a package whose sha256 does not match', async () => {
    await publish({ version: '4.1.0' });
    await withClient(infra.databaseUrl, (client) =>
      client.query(`UPDATE exchange.agent_packages SET sha256 = repeat('0', 64) WHERE version = '4.1.0'`),
    );
    await upgradeTo('4.1.0');

    await eventually(async () =>
      expect(await managementStatus()).toMatchObject({ status: 'precheck-failed', version: '4.1.0' }),
    );
    expect(String((await managementStatus()).error)).toContain('sha256');
    expect(existsSync(join(installDir(), 'versions', '4.1.0'))).toBe(false);
  });

  it('resumes a download cut by a restart with Range, and finishes the upgrade', async () => {
    // The agent running still downloads at DOWNLOAD_BYTES_PER_SECOND: 2 MiB take it seconds.
    await publish({ version: '5.0.0', payloadBytes: 2 * 1024 * 1024 });
    await upgradeTo('5.0.0');
    const part = join(dir, 'state', 'downloads', '5.0.0.tar.gz.part');
    await eventually(async () => expect((await stat(part)).size).toBeGreaterThan(DOWNLOAD_BYTES_PER_SECOND), {
      timeoutMs: 20_000,
    });
    await agent!.kill();
    expect((await managementStatus()).status).toBe('downloading');
    const cut = (await stat(part)).size;

    const resumed = startAgent();
    await eventually(
      async () => expect(await managementStatus()).toMatchObject({ status: 'successful', version: '5.0.0' }),
      {
        timeoutMs: 30_000,
      },
    );
    const resumedAt = resumed.lines().find((line) => line.msg === 'download resumed');
    expect(resumedAt).toMatchObject({ version: '5.0.0' });
    expect(Number(resumedAt!.offset)).toBeGreaterThanOrEqual(cut);
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '5.0.0'));
  });

  it('resumes an install cut by a restart before its health was confirmed, never leaving it hanging', async () => {
    const marker = join(dir, 'healthy');
    // Its health check waits until the marker exists: the agent is stopped while it waits.
    await publish({
      version: '6.0.0',
      healthCheck: `while [ ! -f "${marker}" ]; do sleep 0.1; done; exit 0`,
    });
    await upgradeTo('6.0.0');
    await eventually(
      async () =>
        expect((await readState()).upgrade).toMatchObject({ version: '6.0.0', phase: 'restarting' }),
      {
        timeoutMs: 30_000,
      },
    );
    await eventually(() => expect(agent!.messages()).toContain('resuming an upgrade'));
    await agent!.kill();
    expect((await managementStatus()).status).toBe('initiated');

    await writeFile(marker, '');
    startAgent();
    await eventually(
      async () => expect(await managementStatus()).toMatchObject({ status: 'successful', version: '6.0.0' }),
      {
        timeoutMs: 30_000,
      },
    );
    expect(await agentVersion()).toMatchObject({ package: '6.0.0' });
  });

  it('rolls back an install cut by a restart when the new version turns out unhealthy', async () => {
    const marker = join(dir, 'verdict-7');
    // Its health check waits for the verdict, then fails: the agent is stopped while it waits.
    await publish({
      version: '7.0.0',
      healthCheck: `while [ ! -f "${marker}" ]; do sleep 0.1; done; echo "7.0.0 cannot reach its peers" >&2; exit 1`,
    });
    const resumes = () => agent!.messages().filter((message) => message === 'resuming an upgrade').length;
    const before = resumes();
    await upgradeTo('7.0.0');
    await eventually(
      async () =>
        expect((await readState()).upgrade).toMatchObject({ version: '7.0.0', phase: 'restarting' }),
      { timeoutMs: 30_000 },
    );
    await eventually(() => expect(resumes()).toBe(before + 1));
    await agent!.kill();
    expect(await managementStatus()).toMatchObject({ status: 'initiated', version: '7.0.0' });
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '7.0.0'));

    await writeFile(marker, '');
    startAgent();
    await eventually(
      async () => expect(await managementStatus()).toMatchObject({ status: 'rolled-back', version: '7.0.0' }),
      { timeoutMs: 30_000 },
    );
    expect(String((await managementStatus()).error)).toContain('7.0.0 cannot reach its peers');
    expect(await readlink(join(installDir(), 'current'))).toBe(join('versions', '6.0.0'));
    expect(existsSync(join(installDir(), 'versions', '7.0.0'))).toBe(false);
    expect(await agentVersion()).toMatchObject({ package: '6.0.0', failed: '7.0.0' });
    expect((await readState()).upgrade).toBeUndefined();
  });
});
