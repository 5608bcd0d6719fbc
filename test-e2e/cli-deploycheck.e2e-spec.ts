/**
 * `careen deploycheck` against a real exchange and a real agbot: the agbot answers from its
 * mirror of the exchange, which fills from a resync and then follows the change stream, so
 * every expectation that depends on the registry waits for the mirror to show it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { runCli } from '@careen/cli/src/run-cli';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra } from '@careen/testing';

const ROOT_PASSWORD = 'root-password-1';
const OPS_PASSWORD = 'ops-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const web = [{ name: 'role', value: 'web' }];

/** line-1 is heterogeneous: x2 is a database node, not meant to run the web service. */
const NODES: { id: string; properties: { name: string; value: unknown }[]; constraints?: string[] }[] = [
  { id: 'x1', properties: web },
  { id: 'x2', properties: [{ name: 'role', value: 'db' }] },
  { id: 'x3', properties: web },
  { id: 's1', properties: web },
  // Accepts only workloads whose policy says tier "gold": compatibility is checked both ways.
  { id: 'c1', properties: web, constraints: ['tier == "gold"'] },
];

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('careen deploycheck against a real exchange and agbot', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let agbot: InProcessService<AgbotConfig>;
  let workDir: string;

  const call = async (method: string, path: string, body?: object) => {
    const answer = await http(exchange.url, method, path, { auth: root, ...(body ? { body } : {}) });
    expect([method, path, answer.status < 300]).toEqual([method, path, true]);
    return answer;
  };

  const careen = async (args: string[], env: Record<string, string> = {}): Promise<RunResult> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['deploycheck', ...args], {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {
        HOME: workDir,
        CAREEN_CONFIG_DIR: join(workDir, 'careen'),
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_AGBOT_URL: agbot.url,
        CAREEN_ORG: 'fleet',
        CAREEN_USER: 'ops',
        CAREEN_PASSWORD: OPS_PASSWORD,
        ...env,
      },
    });
    return { code, stdout, stderr };
  };

  /** The answer as JSON, once the command succeeds and the answer passes `check`. */
  const eventuallyAnswers = (args: string[], check: (answer: Record<string, unknown>) => void) =>
    eventually(
      async () => {
        const result = await careen([...args, '-o', 'json']);
        expect(result).toMatchObject({ code: 0, stderr: '' });
        const answer = JSON.parse(result.stdout) as Record<string, unknown>;
        check(answer);
        return answer;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-deploycheck-'));
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await call('POST', '/v1/orgs', { id: 'fleet' });
    await call('POST', '/v1/orgs/fleet/users', { username: 'ops', password: OPS_PASSWORD, role: 'orgAdmin' });
    for (const node of NODES) {
      await call('PUT', `/v1/orgs/fleet/nodes/${node.id}`, {
        token: `${node.id}-token-0123456789`,
        policy: { properties: node.properties, constraints: node.constraints ?? [] },
      });
    }
    await call('POST', '/v1/orgs/fleet/hagroups', { name: 'line-1', members: ['x1', 'x2', 'x3'] });
    await call('PUT', '/v1/orgs/fleet/services/web-1-0-0', {
      url: 'fleet.web',
      version: '1.0.0',
      arch: 'amd64',
      runtime: {},
    });
    await call('PUT', '/v1/orgs/fleet/deployment-policies/web', {
      project: 'shop',
      service: { org: 'fleet', url: 'fleet.web', versionRange: '>=1.0.0' },
      constraints: ['role == "web"'],
      placement: { mode: 'all' },
    });
    agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    // The agbot answers from its mirror, filled asynchronously: first a resync, then every change
    // on the stream in order — older ones included, so the mirror settles only once the stream
    // has been read to its end. A policy published after the resync marks that end.
    await eventuallyAnswers(['--policy', 'web'], (answer) =>
      expect(answer).toMatchObject({ summary: { nodes: NODES.length } }),
    );
    await call('PUT', '/v1/orgs/fleet/deployment-policies/mirror-marker', {
      project: 'shop',
      service: { org: 'fleet', url: 'fleet.web', versionRange: '>=1.0.0' },
      constraints: ['role == "none"'],
      placement: { mode: 'all' },
    });
    await eventuallyAnswers(['--policy', 'mirror-marker'], (answer) =>
      expect(answer).toMatchObject({ deploymentPolicy: 'mirror-marker' }),
    );
  });

  afterAll(async () => {
    await agbot?.close();
    await exchange?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('prints a summary line and a verdict per node as a table', async () => {
    const result = await careen(['--policy', 'web']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      'deployment policy fleet/web (service fleet/fleet.web 1.0.0): not compatible — ' +
        '3 of 5 node(s) compatible, 3 deployable now',
    );
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^NODE +HA GROUP +VERDICT +VERSION +REASONS$/);
    expect(
      lines.slice(3, 8).map((line) => /^(\S+) +(line-1 +)?(incompatible|deployable) /.exec(line)?.[0]),
    ).toEqual([
      expect.stringMatching(/^c1 +incompatible $/),
      expect.stringMatching(/^s1 +deployable $/),
      expect.stringMatching(/^x1 +line-1 +deployable $/),
      expect.stringMatching(/^x2 +line-1 +incompatible $/),
      expect.stringMatching(/^x3 +line-1 +deployable $/),
    ]);
    expect(lines[3]).toMatch(/tier == "gold"/);
    expect(lines[6]).toMatch(/role == "web"/);
    expect(result.stdout).not.toMatch(/DURING UPGRADE/);
  });

  it('prints the agbot answer as JSON, here for a service at a given version in one HA group', async () => {
    const result = await careen(['--service', 'fleet.web@1.0.0', '--ha-group', 'line-1', '-o', 'json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({
      org: 'fleet',
      deploymentPolicy: null,
      service: { org: 'fleet', url: 'fleet.web', version: '1.0.0' },
      compatible: true,
      summary: { nodes: 3, compatible: 3, deployable: 3 },
      nodes: ['x1', 'x2', 'x3'].map((node) => ({
        node,
        haGroup: 'line-1',
        compatible: true,
        deployable: true,
        version: '1.0.0',
        reasons: [],
      })),
      haGroups: [
        {
          haGroup: 'line-1',
          members: ['x1', 'x2', 'x3'],
          compatibleMembers: ['x1', 'x2', 'x3'],
          deployableMembers: ['x1', 'x2', 'x3'],
          available: true,
          staysAvailableDuringUpgrade: true,
          reason: '3 members would run the service; an upgrade rolls one at a time',
        },
      ],
    });
  });

  describe('--check-ha over a heterogeneous group', () => {
    it("judges a node's whole group, leaving out the member not meant to run the service", async () => {
      const result = await careen(['--policy', 'web', '--node', 'x1', '--check-ha']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.split('\n')[0]).toBe(
        'deployment policy fleet/web (service fleet/fleet.web 1.0.0): not compatible — ' +
          '2 of 3 node(s) compatible, 2 deployable now',
      );
      expect(result.stdout).toMatch(/^HA GROUP +AVAILABLE +DURING UPGRADE +RUNS ON +REASON$/m);
      expect(result.stdout).toMatch(
        /^line-1 +yes +yes +2\/3 +2 members would run the service; an upgrade rolls one at a time; 1 member\(s\) not meant to run it are not counted$/m,
      );
    });

    it('says an upgrade would interrupt the group once one of its two web members is cordoned', async () => {
      await call('PATCH', '/v1/orgs/fleet/nodes/x3', { schedulable: false });
      const answer = await eventuallyAnswers(
        ['--policy', 'web', '--ha-group', 'line-1', '--check-ha'],
        (each) => expect(each).toMatchObject({ summary: { deployable: 1 } }),
      );
      expect(answer).toMatchObject({
        compatible: false,
        haGroups: [
          {
            haGroup: 'line-1',
            compatibleMembers: ['x1', 'x3'],
            deployableMembers: ['x1'],
            available: true,
            staysAvailableDuringUpgrade: false,
            reason:
              'only x1 would run the service: an upgrade would interrupt it; 1 member(s) not meant to run it are not counted',
          },
        ],
      });
      const table = await careen(['--policy', 'web', '--ha-group', 'line-1', '--check-ha']);
      expect(table.stdout).toMatch(/^x3 +line-1 +compatible, unavailable +1\.0\.0 +\S/m);
      expect(table.stdout).toMatch(/^line-1 +yes +no +1\/3 +only x1 would run the service/m);
    });
  });

  it('reports an unknown deployment policy as the 404 the agbot answers', async () => {
    expect(await careen(['--policy', 'nope'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: deployment policy "fleet/nope" not found (404)\n',
    });
  });

  it('reports an unknown service and an unknown node as not found', async () => {
    const service = await careen(['--service', 'fleet.web@9.9.9']);
    expect(service).toMatchObject({ code: 1, stdout: '' });
    expect(service.stderr).toBe('error: service "fleet/fleet.web@9.9.9" not found (404)\n');
    const node = await careen(['--policy', 'web', '--node', 'ghost']);
    expect(node).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: node "fleet/ghost" not found (404)\n',
    });
  });

  describe('usage errors, before anything is asked', () => {
    it('needs exactly one of --policy and --service', async () => {
      expect(await careen([])).toEqual({
        code: 2,
        stdout: '',
        stderr: 'error: give exactly one of --policy and --service\n',
      });
      expect(await careen(['--policy', 'web', '--service', 'fleet.web'])).toMatchObject({
        code: 2,
        stderr: 'error: give exactly one of --policy and --service\n',
      });
    });

    it('refuses --ha-group with --node, and unknown options', async () => {
      const both = await careen(['--policy', 'web', '--ha-group', 'line-1', '--node', 'x1']);
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/--ha-group <name>.*cannot be used with option '--node <id>'/);
      const unknown = await careen(['--policy', 'web', '--check-everything']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/unknown option '--check-everything'/);
    });

    it('refuses a malformed service reference and a malformed agbot URL', async () => {
      expect(await careen(['--service', 'fleet/'])).toMatchObject({
        code: 1,
        stderr: 'error: invalid service "fleet/": expected org/url or org/url@version\n',
      });
      const url = await careen(['--policy', 'web', '--agbot-url', 'localhost:8081']);
      expect(url.code).toBe(1);
      expect(url.stderr).toMatch(/^error: invalid agbot URL "localhost:8081"/);
    });
  });

  it('names the agbot when it cannot be reached, and --agbot-url wins over CAREEN_AGBOT_URL', async () => {
    const unreachable = await careen(['--policy', 'web'], { CAREEN_AGBOT_URL: 'http://127.0.0.1:1' });
    expect(unreachable).toMatchObject({ code: 1, stdout: '' });
    expect(unreachable.stderr).toMatch(
      /^error: cannot reach the agbot at http:\/\/127\.0\.0\.1:1 \([^)]+\); set --agbot-url or CAREEN_AGBOT_URL\n$/,
    );
    const flag = await careen(['--policy', 'web', '--agbot-url', agbot.url], {
      CAREEN_AGBOT_URL: 'http://127.0.0.1:1',
    });
    expect(flag).toMatchObject({ code: 0, stderr: '' });
  });

  it('passes the agbot refusal of bad credentials on', async () => {
    const refused = await careen(['--policy', 'web'], { CAREEN_PASSWORD: 'wrong-password-1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(401\)/);
  });
});
