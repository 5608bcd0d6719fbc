import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { freePort } from '@careen/devstack';
import { basic, useTestInfra } from '@careen/testing';
import { startServiceInProcess } from '@careen/service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { runCli } from '@careen/cli/src/run-cli';
import { publishAgentPackage } from './support/agent-packages';

const ROOT_PASSWORD = 'root-password-1';
const OPS_PASSWORD = 'ops-password-1';

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  /** What is typed at a pretend terminal (stdin is then a TTY). */
  terminal?: string;
  env?: Record<string, string>;
}

describe('careen nodes, HA groups, services, policies and agent packages against a real exchange', () => {
  const infra = useTestInfra();
  let exchange: { url: string; close(): Promise<void> };
  let workDir: string;
  /**
   * Where no agbot runs: a free port, not the default one, which a hub started on this machine
   * (`npm start`) would answer.
   */
  let noAgbot: string;

  const careen = async (args: string[], options: RunOptions = {}): Promise<RunResult> => {
    let stdout = '';
    let stderr = '';
    let stdin: (Readable & { isTTY?: boolean }) | undefined;
    if (options.terminal !== undefined) {
      stdin = Readable.from([options.terminal]);
      stdin.isTTY = true;
    }
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      stdin,
      env: {
        HOME: workDir,
        CAREEN_CONFIG_DIR: join(workDir, 'careen'),
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_ORG: 'fleet',
        CAREEN_USER: 'ops',
        CAREEN_PASSWORD: OPS_PASSWORD,
        CAREEN_AGBOT_URL: noAgbot,
        ...options.env,
      },
    });
    return { code, stdout, stderr };
  };

  const file = async (name: string, content: unknown): Promise<string> => {
    const where = join(workDir, name);
    await writeFile(where, typeof content === 'string' ? content : JSON.stringify(content));
    return where;
  };

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    noAgbot = `http://127.0.0.1:${await freePort()}`;
    workDir = await mkdtemp(join(tmpdir(), 'careen-registry-'));
    const root = { CAREEN_ORG: 'root', CAREEN_USER: 'root', CAREEN_PASSWORD: ROOT_PASSWORD };
    expect((await careen(['org', 'create', 'fleet'], { env: root })).code).toBe(0);
    const added = await careen(['user', 'add', 'ops', '--org', 'fleet', '--role', 'orgAdmin'], {
      env: { ...root, CAREEN_NEW_PASSWORD: OPS_PASSWORD },
    });
    expect(added.code).toBe(0);
  });

  afterAll(async () => {
    await exchange?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('node', () => {
    it('registers a node with a given token, labels, tags and rack, and prints the token once', async () => {
      const result = await careen([
        'node',
        'register',
        'n1',
        '--token',
        'n1-token-secret',
        '--name',
        'edge 1',
        '--label',
        'zone=eu-1',
        '--label',
        'tier=gold',
        '--tag',
        'lab',
        '--rack',
        'r1',
      ]);
      expect(result).toEqual({
        code: 0,
        stderr: '',
        stdout:
          'registered node "fleet/n1"\ntoken: n1-token-secret\n' +
          "(the token is not shown again: keep it for the node's agent)\n",
      });
    });

    it('registers nodes with a token made by the exchange, as json', async () => {
      const policy = await file('node-policy.json', {
        properties: [{ name: 'careen.arch', value: 'amd64' }],
        constraints: [],
      });
      for (const id of ['n2', 'n3', 'n4']) {
        const result = await careen(['node', 'register', id, '--policy-file', policy, '-o', 'json']);
        expect(result).toMatchObject({ code: 0, stderr: '' });
        expect(JSON.parse(result.stdout)).toEqual({ org: 'fleet', id, token: expect.any(String) });
      }
    });

    it('says the token is unchanged when a node is registered again without one', async () => {
      expect(await careen(['node', 'register', 'n3', '--name', 'edge 3'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'registered node "fleet/n3"; its token is unchanged\n',
      });
    });

    it('lists nodes as a table and filters them by label', async () => {
      const all = await careen(['node', 'list']);
      expect(all.code).toBe(0);
      expect(all.stdout).toMatch(
        /^ID +VERSION +LAST SEEN +NAME +PATTERN +HA GROUP +RACK +LABELS +SCHEDULABLE\n/,
      );
      expect(all.stdout).toMatch(/\nn1 +never +edge 1 +r1 +tier=gold,zone=eu-1 +true\n/);
      expect(all.stdout.trimEnd().split('\n')).toHaveLength(5);

      const eu = await careen(['node', 'list', '--label', 'zone=eu-1', '-o', 'json']);
      const answer = JSON.parse(eu.stdout);
      expect(answer.total).toBe(1);
      expect(answer.items[0]).toMatchObject({ id: 'n1', name: 'edge 1', rack: 'r1', tags: ['lab'] });

      expect(await careen(['node', 'list', '--label', 'zone=mars'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'no nodes matching the filters in org "fleet"\n',
      });
    });

    it('shows a node without its token', async () => {
      const result = await careen(['node', 'show', 'n1', '-o', 'json']);
      expect(result.code).toBe(0);
      const node = JSON.parse(result.stdout);
      expect(node).toMatchObject({ org: 'fleet', id: 'n1', labels: { zone: 'eu-1', tier: 'gold' } });
      expect(result.stdout).not.toContain('n1-token-secret');
    });

    it('refuses a label that is not key=value', async () => {
      expect(await careen(['node', 'register', 'n9', '--label', 'zone'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: --label must be key=value, not "zone"\n',
      });
    });

    it('removes a node only when confirmed', async () => {
      expect(await careen(['node', 'remove', 'n4'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: not removing node "fleet/n4" without confirmation: pass --yes\n',
      });
      const declined = await careen(['node', 'remove', 'n4'], { terminal: 'n\n' });
      expect(declined).toMatchObject({ code: 0, stdout: '' });
      expect(declined.stderr).toContain('nothing removed');
      expect(await careen(['node', 'remove', 'n4', '--yes'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'removed node "fleet/n4"\n',
      });
      expect(await careen(['node', 'show', 'n4'])).toMatchObject({ code: 1, stdout: '' });
    });
  });

  describe('hagroup', () => {
    it('creates a group and shows it', async () => {
      const created = await careen([
        'hagroup',
        'create',
        'pair-1',
        '--members',
        'n1,n2',
        '--description',
        'first pair',
      ]);
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(
        /^org +fleet\nname +pair-1\ndescription +first pair\nmembers +\["n1","n2"\]\nmaxUnavailable +1\nupdated +\S+\n$/,
      );
      const shown = await careen(['hagroup', 'show', 'pair-1', '-o', 'json']);
      expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'pair-1', members: ['n1', 'n2'] });
    });

    it('lists the groups and the nodes of a group', async () => {
      const listed = await careen(['hagroup', 'list']);
      // No agbot runs here: the groups are listed, their slots unknown, and stderr says why.
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        /^NAME +MEMBERS +MAX DOWN +SLOT +DESCRIPTION +UPDATED\npair-1 +n1,n2 +1 +unknown +first pair +\S+\n$/,
      );
      expect(listed.stderr).toMatch(/^warning: cannot reach the agbot at \S+ \(.+\): slots unknown/);

      const members = await careen(['node', 'list', '--ha-group', 'pair-1', '-o', 'json']);
      const answer = JSON.parse(members.stdout);
      expect(answer.items.map((node: { id: string }) => node.id).sort()).toEqual(['n1', 'n2']);
    });

    it('refuses a node already in another group with a clean 409', async () => {
      expect(await careen(['hagroup', 'create', 'pair-2', '--members', 'n2,n3'])).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'error: node "n2" is already in HA group "pair-1"; a node may be in one HA group only (409)\n',
      });
    });

    it('replaces the members and description', async () => {
      const updated = await careen(['hagroup', 'update', 'pair-1', '--members', 'n1,n3', '-o', 'json']);
      expect(updated.code).toBe(0);
      expect(JSON.parse(updated.stdout)).toMatchObject({ members: ['n1', 'n3'], description: '' });
    });

    it('deletes a group', async () => {
      expect(await careen(['hagroup', 'delete', 'pair-1'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'deleted HA group "fleet/pair-1"\n',
      });
      expect(await careen(['hagroup', 'show', 'pair-1'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: HA group "fleet/pair-1" not found (404)\n',
      });
      expect(await careen(['hagroup', 'list'])).toMatchObject({ stdout: 'no HA groups in org "fleet"\n' });
    });
  });

  describe('service and deploypolicy', () => {
    it('publishes, lists, shows and removes a service', async () => {
      const service = await file('service.json', {
        url: 'fleet.gateway',
        version: '1.4.2',
        arch: 'amd64',
        runtime: { kind: 'process', command: ['/opt/gateway/bin/gateway'] },
      });
      const published = await careen(['service', 'publish', 'gateway-142', '--file', service]);
      expect(published).toMatchObject({ code: 0, stderr: '' });
      expect(published.stdout).toMatch(/^org +fleet\nid +gateway-142\nurl +fleet\.gateway\n/);

      const listed = await careen(['service', 'list', '--url', 'fleet.gateway']);
      expect(listed.stdout).toMatch(
        /^ID +URL +VERSION +ARCH +UPDATED\ngateway-142 +fleet\.gateway +1\.4\.2 +amd64 +\S+\n$/,
      );
      expect(await careen(['service', 'list', '--url', 'other'])).toMatchObject({
        stdout: 'no services in org "fleet"\n',
      });

      const shown = await careen(['service', 'show', 'gateway-142', '-o', 'json']);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: 'gateway-142', version: '1.4.2' });
    });

    it('publishes, lists, shows and removes a deployment policy', async () => {
      const policy = await file('deploy.json', {
        project: 'gateways',
        service: { org: 'fleet', url: 'fleet.gateway', versionRange: '>=1.0.0 <2.0.0' },
        constraints: ['zone == "eu-1"'],
        placement: { mode: 'replicas', replicas: 2 },
      });
      const published = await careen(['deploypolicy', 'publish', 'gw-eu', '--file', policy, '-o', 'json']);
      expect(published).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(published.stdout)).toMatchObject({
        name: 'gw-eu',
        placement: { mode: 'replicas', replicas: 2 },
      });

      const listed = await careen(['deploypolicy', 'list']);
      expect(listed.stdout).toMatch(
        /^NAME +PROJECT +SERVICE +PLACEMENT +UPDATED\ngw-eu +gateways +fleet\/fleet\.gateway >=1\.0\.0 <2\.0\.0 +replicas: 2 +\S+\n$/,
      );
      expect((await careen(['deploypolicy', 'show', 'gw-eu'])).stdout).toMatch(/^org +fleet\nname +gw-eu\n/);

      expect(await careen(['deploypolicy', 'remove', 'gw-eu'])).toMatchObject({ code: 1 });
      expect(await careen(['deploypolicy', 'remove', 'gw-eu', '--yes'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'removed deployment policy "fleet/gw-eu"\n',
      });
      expect(await careen(['service', 'remove', 'gateway-142', '--yes'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'removed service "fleet/gateway-142"\n',
      });
      expect(await careen(['deploypolicy', 'list'])).toMatchObject({
        stdout: 'no deployment policies in org "fleet"\n',
      });
    });

    it('shows the field problems of an invalid deployment policy', async () => {
      const policy = await file('deploy-bad.json', {
        project: 'gateways',
        service: { org: 'fleet', url: 'fleet.gateway', versionRange: '>=1.0.0' },
        placement: { mode: 'all', replicas: 2 },
      });
      const result = await careen(['deploypolicy', 'publish', 'gw-bad', '--file', policy]);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(
        /^error: invalid request \(400\)\n {2}\S*replicas: replicas is forbidden when mode is "all"/,
      );
    });
  });

  describe('agentpackage', () => {
    const root = { CAREEN_ORG: 'root', CAREEN_USER: 'root', CAREEN_PASSWORD: ROOT_PASSWORD };

    it('builds a package from a folder, publishes it, lists and shows it', async () => {
      const dir = join(workDir, 'agent');
      await mkdir(join(dir, 'packages'), { recursive: true });
      await mkdir(join(dir, 'config'), { recursive: true });
      await writeFile(join(dir, 'packages', 'careen-agent.deb'), 'agent bytes');
      await writeFile(join(dir, 'config', 'agent.env'), 'CAREEN_EXCHANGE_URL=https://hub.example\n');
      await writeFile(join(dir, 'package.json'), JSON.stringify({ version: '0.0.1', configVersion: '7' }));
      const out = join(workDir, 'agent-1.0.2.tar.gz');

      const built = await careen(['agentpackage', 'new', dir, '--package-version', '1.0.2', '--out', out]);
      expect(built).toEqual({ code: 0, stderr: '', stdout: `wrote agent package 1.0.2 to ${out}\n` });
      const listing = execFileSync('tar', ['tzf', out], { encoding: 'utf8' }).trim().split('\n');
      expect(listing).toEqual([
        'package.json',
        'config/',
        'config/agent.env',
        'packages/',
        'packages/careen-agent.deb',
      ]);

      const published = await careen(['agentpackage', 'publish', out, '-o', 'json'], { env: root });
      expect(published).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(published.stdout)).toMatchObject({
        version: '1.0.2',
        manifest: { version: '1.0.2', configVersion: '7' },
        uploadedBy: 'root/root',
      });

      const listed = await careen(['agentpackage', 'list'], { env: root });
      expect(listed.stdout).toMatch(
        /^VERSION +SIZE +SIGNED +SHA256 +UPLOADED BY +UPLOADED\n1\.0\.2 +\d+ +false +[0-9a-f]{64} +root\/root +\S+\n$/,
      );

      const shown = await careen(['agentpackage', 'show', '1.0.2']);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^version +1\.0\.2\n/);
    });

    it('refuses to build from a folder holding anything else', async () => {
      const dir = join(workDir, 'messy');
      await mkdir(join(dir, 'bin'), { recursive: true });
      const result = await careen([
        'agentpackage',
        'new',
        dir,
        '--package-version',
        '1.0.3',
        '--out',
        join(workDir, 'm.tgz'),
      ]);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: ${dir} may hold only package.json and the folders packages, ssl, config; found bin\n`,
      });
    });

    it('refuses a publish by someone who is not a hub admin', async () => {
      const out = join(workDir, 'agent-1.0.4.tar.gz');
      const dir = join(workDir, 'agent');
      expect(
        (await careen(['agentpackage', 'new', dir, '--package-version', '1.0.4', '--out', out])).code,
      ).toBe(0);
      const result = await careen(['agentpackage', 'publish', out]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: .+ \(403\)\n$/);
    });
  });

  describe('nmp', () => {
    it('prints a commented template that publish accepts as is', async () => {
      const template = await careen(['nmp', 'new']);
      expect(template).toMatchObject({ code: 0, stderr: '' });
      expect(template.stdout).toContain('// ');
      const published = await careen([
        'nmp',
        'publish',
        'from-template',
        '--file',
        await file('template.json', template.stdout),
        '-o',
        'json',
      ]);
      expect(published).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(published.stdout)).toMatchObject({
        name: 'from-template',
        enabled: false,
        agentUpgradePolicy: { atLeastVersion: 'current', action: 'install' },
      });
      expect((await careen(['nmp', 'remove', 'from-template', '--yes'])).code).toBe(0);
    });

    it('publishes a policy for listed nodes, then lists, shows it and its nodes', async () => {
      // An enabled upgrade needs its package published.
      await publishAgentPackage(exchange.url, basic('root', 'root', ROOT_PASSWORD), '2.31.0');
      const canary = await file('canary.json', {
        label: 'canary',
        nodes: ['n1'],
        enabled: true,
        agentUpgradePolicy: { atLeastVersion: '2.31.0' },
      });
      const published = await careen(['nmp', 'publish', 'canary', '--file', canary]);
      expect(published).toMatchObject({ code: 0, stderr: '' });
      expect(published.stdout).toMatch(/^org +fleet\nname +canary\n/);

      const listed = await careen(['nmp', 'list']);
      expect(listed.stdout).toMatch(/^NAME +STATE +VERSION +PATTERNS +NODES +CONSTRAINTS +LAST UPDATED\n/);
      expect(listed.stdout).toMatch(/\ncanary +active +2\.31\.0 +n1 +\S+\n$/);

      const shown = await careen(['nmp', 'show', 'canary', '-o', 'json']);
      expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'canary', nodes: ['n1'], enabled: true });

      expect(await careen(['nmp', 'nodes', 'canary'])).toEqual({ code: 0, stderr: '', stdout: 'NODE\nn1\n' });
    });

    it('shows the status rollup of a policy', async () => {
      const table = await careen(['nmp', 'status', 'canary']);
      expect(table).toMatchObject({ code: 0, stderr: '' });
      expect(table.stdout).toMatch(
        /^nmp +canary\ntotal +0\nfailed +0\nenabled +true\npaused +false\nstate +active\n/,
      );
      const json = await careen(['nmp', 'status', 'canary', '-o', 'json']);
      expect(JSON.parse(json.stdout)).toEqual({
        nmp: 'canary',
        counts: {},
        total: 0,
        failed: 0,
        enabled: true,
        paused: false,
        state: 'active',
        disabledReason: null,
        failuresCountedSince: null,
        missingPackage: null,
        noPackage: [],
      });
    });

    it('refuses to publish a policy that selects every node without --yes when not at a terminal', async () => {
      const everyNode = await file('every-node.json', { enabled: true, allowDisruptive: true });
      expect(await careen(['nmp', 'publish', 'everything', '--file', everyNode])).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'error: not publishing policy "fleet/everything", which selects every node, without confirmation: pass --yes\n',
      });
      const star = await file('star.json', { enabled: true, patterns: ['*'], constraints: ['a == 1'] });
      expect((await careen(['nmp', 'publish', 'everything', '--file', star])).code).toBe(1);
      expect(await careen(['nmp', 'show', 'everything'])).toMatchObject({ code: 1, stdout: '' });
    });

    it('asks at a terminal, and publishes nothing when the answer is no', async () => {
      const everyNode = await file('every-node.json', { enabled: true });
      const declined = await careen(['nmp', 'publish', 'everything', '--file', everyNode], {
        terminal: 'n\n',
      });
      expect(declined).toEqual({
        code: 0,
        stdout: '',
        stderr:
          'This policy may upgrade every node at about the same time. Publish it? [y/N]: nothing published\n',
      });
      const accepted = await careen(['nmp', 'publish', 'everything', '--file', everyNode, '-o', 'json'], {
        terminal: 'y\n',
      });
      expect(accepted.code).toBe(0);
      expect(JSON.parse(accepted.stdout)).toMatchObject({ name: 'everything', enabled: true });
    });

    it('publishes a policy that selects every node with --yes', async () => {
      const star = await file('star.json', { enabled: true, patterns: ['*'] });
      const result = await careen(['nmp', 'publish', 'every-pattern', '--file', star, '--yes', '-o', 'json']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(result.stdout)).toMatchObject({ name: 'every-pattern', patterns: ['*'] });
    });

    it('shows field problems of an invalid policy', async () => {
      const bad = await file('bad.json', { agentUpgradePolicy: { atLeastVersion: 'latest' } });
      const result = await careen(['nmp', 'publish', 'bad', '--file', bad]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: invalid request \(400\)\n {2}\S*atLeastVersion: /);
    });

    it('says when the file is not JSON', async () => {
      const broken = await file('broken.json', '{ "enabled": ');
      const result = await careen(['nmp', 'publish', 'broken', '--file', broken]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: \S+broken\.json:\d+:\d+: not valid JSON: /);
    });

    it('removes a policy only when confirmed', async () => {
      expect(await careen(['nmp', 'remove', 'canary'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: not removing management policy "fleet/canary" without confirmation: pass --yes\n',
      });
      expect(await careen(['nmp', 'remove', 'canary', '--yes'])).toEqual({
        code: 0,
        stderr: '',
        stdout: 'removed management policy "fleet/canary"\n',
      });
      expect(await careen(['nmp', 'show', 'canary'])).toMatchObject({ code: 1, stdout: '' });
    });
  });
});
