/**
 * A real agent process against the real exchange, installed at 2.0.0 with the tarball strategy,
 * goes below the version it runs only when its management policy allows a downgrade: a policy
 * at 1.0.0 without the flag leaves it alone (`no-action-required`); with it, a lower version that
 * turns out unhealthy is rolled back up to 2.0.0, and 1.0.0 is unpacked, made the running
 * version after a restart and reported, each step in the node's history marked a rollback.
 */
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { existsSync } from 'node:fs';
import { mkdtemp, readlink, rm, writeFile } from 'node:fs/promises';
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
const NMP = 'agent-rollback';

interface HistoryEntry {
  event: string;
  version: string | null;
  fromVersion: string | null;
  rollback: boolean;
}

describe('agent downgrades with the tarball strategy (real process, real exchange)', () => {
  const infra = useTestInfra();
  const trusted = signingPair();
  let exchange: InProcessService<ExchangeConfig>;
  let dir: string;
  let agent: SupervisedAgent | undefined;

  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: ada, body });
  const installDir = () => join(dir, 'install');
  const current = () => readlink(join(installDir(), 'current'));
  const managementStatus = async () =>
    (await call('GET', `/v1/orgs/acme/nodes/edge-1/managementStatus/${NMP}`)).body as Record<string, unknown>;
  const agentVersion = async () =>
    (
      (await call('GET', '/v1/orgs/acme/nodes/edge-1')).body as {
        status?: { agentVersion?: Record<string, unknown> };
      }
    ).status?.agentVersion;

  async function publish(fixture: PackageFixture): Promise<Buffer> {
    const bytes = await buildPackage(fixture);
    const answer = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: root,
      rawBody: bytes,
      headers: { 'content-type': 'application/gzip', 'x-careen-signature': signPackage(bytes, trusted) },
    });
    expect(answer.status).toBe(201);
    return bytes;
  }

  async function target(version: string, allowDowngrade?: boolean): Promise<void> {
    const answer = await call('PUT', `/v1/orgs/acme/management-policies/${NMP}`, {
      nodes: ['edge-1'],
      enabled: true,
      agentUpgradePolicy: {
        atLeastVersion: version,
        start: 'now',
        duration: 0,
        action: 'install',
        ...(allowDowngrade !== undefined && { allowDowngrade }),
      },
    });
    expect(answer.status).toBeLessThan(300);
  }

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
    await call('PUT', '/v1/orgs/acme/nodes/edge-1', { token: NODE_TOKEN });
    dir = await mkdtemp(join(tmpdir(), 'careen-agent-downgrade-'));
    // The node was installed with 2.0.0; 1.0.0 and 1.5.0 were never on it.
    const installed = join(dir, 'agent-2.0.0.tar.gz');
    await writeFile(installed, await publish({ version: '2.0.0', healthCheck: 'exit 0' }));
    const strategy = new TarballInstallStrategy(installDir());
    await strategy.install('2.0.0', installed);
    await strategy.activate('2.0.0');
    await publish({ version: '1.0.0', healthCheck: 'exit 0' });
    await publish({ version: '1.5.0', healthCheck: 'echo "1.5.0 cannot read the 2.0.0 state" >&2; exit 1' });
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
    });
    await eventually(async () => expect(await agentVersion()).toMatchObject({ package: '2.0.0' }), {
      timeoutMs: 30_000,
    });
  });

  afterAll(async () => {
    await agent?.stop();
    await exchange.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stays at 2.0.0 for a policy at 1.0.0 that does not allow a downgrade', async () => {
    await target('1.0.0');

    await eventually(
      async () =>
        expect(await managementStatus()).toMatchObject({ status: 'no-action-required', version: '1.0.0' }),
      { timeoutMs: 30_000 },
    );
    expect(await current()).toBe(join('versions', '2.0.0'));
    expect(existsSync(join(installDir(), 'versions', '1.0.0'))).toBe(false);
    expect(await agentVersion()).toMatchObject({ package: '2.0.0' });
    expect(agent!.runs()).toBe(1);
  });

  it('rolls a downgrade whose version turns out unhealthy back up to 2.0.0', async () => {
    await target('1.5.0', true);

    await eventually(
      async () =>
        expect(await managementStatus()).toMatchObject({
          status: 'rolled-back',
          version: '1.5.0',
          fromVersion: '2.0.0',
        }),
      { timeoutMs: 30_000 },
    );
    expect(String((await managementStatus()).error)).toContain('1.5.0 cannot read the 2.0.0 state');
    expect(await current()).toBe(join('versions', '2.0.0'));
    expect(existsSync(join(installDir(), 'versions', '1.5.0'))).toBe(false);
    expect(await agentVersion()).toMatchObject({ package: '2.0.0', failed: '1.5.0' });
  });

  it('goes down to 1.0.0 once the policy allows it: unpacked, restarted on it and reported', async () => {
    const restarts = () =>
      agent!.messages().filter((message) => message === 'restarting on the new version').length;
    const before = restarts();
    await target('1.0.0', true);

    await eventually(
      async () =>
        expect(await managementStatus()).toMatchObject({
          status: 'successful',
          version: '1.0.0',
          fromVersion: '2.0.0',
        }),
      { timeoutMs: 30_000 },
    );
    expect(await current()).toBe(join('versions', '1.0.0'));
    expect(existsSync(join(installDir(), 'versions', '1.0.0', 'package.json'))).toBe(true);
    // The version it left stays on disk, as after an upgrade.
    expect(existsSync(join(installDir(), 'versions', '2.0.0', 'package.json'))).toBe(true);
    await eventually(async () => expect(await agentVersion()).toMatchObject({ package: '1.0.0' }));
    expect(restarts()).toBe(before + 1);

    const history = (await call('GET', `/v1/orgs/acme/nodes/edge-1/history?nmp=${NMP}`)).body
      .items as HistoryEntry[];
    const steps = history.filter((entry) => entry.version === '1.0.0' && entry.fromVersion === '2.0.0');
    expect(steps.map((entry) => entry.event)).toContain('successful');
    expect(steps.every((entry) => entry.rollback)).toBe(true);
    expect(history.find((entry) => entry.event === 'no-action-required')).toMatchObject({
      rollback: false,
    });
  });
});
