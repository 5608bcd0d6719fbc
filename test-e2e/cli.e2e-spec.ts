import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { http, useTestInfra } from '@careen/testing';
import { startServiceInProcess } from '@careen/service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { runCli } from '@careen/cli/src/run-cli';

const ROOT_PASSWORD = 'root-password-1';

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
  configDir?: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('careen against a real exchange', () => {
  const infra = useTestInfra();
  let exchange: { url: string; close(): Promise<void> };
  let workDir: string;
  let configDir: string;

  const careen = async (args: string[], options: RunOptions = {}): Promise<RunResult> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      stdin: options.stdin === undefined ? undefined : Readable.from([options.stdin]),
      env: { HOME: workDir, CAREEN_CONFIG_DIR: options.configDir ?? configDir, ...options.env },
    });
    return { code, stdout, stderr };
  };

  /** A config dir of its own, for runs that must not see the shared login. */
  const freshConfigDir = () => mkdtemp(join(workDir, 'config-'));

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    workDir = await mkdtemp(join(tmpdir(), 'careen-cli-'));
    configDir = join(workDir, 'careen');
  });

  afterAll(async () => {
    await exchange?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('login', () => {
    it('logs in with a password from stdin and keeps only the token, readable by its owner alone', async () => {
      const result = await careen(
        ['login', '--exchange', exchange.url, '--org', 'root', '--user', 'root', '--password-stdin'],
        {
          stdin: `${ROOT_PASSWORD}\n`,
        },
      );

      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(
        new RegExp(
          `^logged in to ${exchange.url} as root/root until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`,
        ),
      );

      const file = join(configDir, 'config.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(await readFile(file, 'utf8'));
      expect(stored).toEqual({
        exchangeUrl: exchange.url,
        org: 'root',
        username: 'root',
        accessToken: expect.any(String),
        expiresAt: expect.any(String),
        refreshToken: expect.any(String),
        refreshExpiresAt: expect.any(String),
      });
      expect(Date.parse(stored.expiresAt)).toBeGreaterThan(Date.now());
      expect(Date.parse(stored.refreshExpiresAt)).toBeGreaterThan(Date.parse(stored.expiresAt));
      expect(JSON.stringify(stored)).not.toContain(ROOT_PASSWORD);
    });

    it('refuses wrong credentials with the exchange message and stores nothing', async () => {
      const dir = await freshConfigDir();
      const result = await careen(
        ['login', '--exchange', exchange.url, '--org', 'root', '--user', 'root', '--password-stdin'],
        {
          stdin: 'wrong-password',
          configDir: dir,
        },
      );
      expect(result).toEqual({ code: 1, stdout: '', stderr: 'error: invalid credentials (401)\n' });
      await expect(stat(join(dir, 'config.json'))).rejects.toThrow('ENOENT');
    });

    it('names what is missing when it cannot ask', async () => {
      const result = await careen(
        ['login', '--exchange', exchange.url, '--user', 'root', '--password-stdin'],
        { stdin: ROOT_PASSWORD, configDir: await freshConfigDir() },
      );
      expect(result).toMatchObject({ code: 1, stderr: 'error: missing org: pass --org or set CAREEN_ORG\n' });
    });

    it('takes the password from CAREEN_PASSWORD and reports the login as json', async () => {
      const result = await careen(['login', '-o', 'json', '--exchange', exchange.url], {
        env: { CAREEN_ORG: 'root', CAREEN_USER: 'root', CAREEN_PASSWORD: ROOT_PASSWORD },
        configDir: await freshConfigDir(),
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        exchangeUrl: exchange.url,
        org: 'root',
        username: 'root',
        expiresAt: expect.any(String),
      });
      expect(result.stderr).toBe('note: CAREEN_USER is set and takes precedence over this login\n');
    });
  });

  describe('orgs', () => {
    it('creates an org and shows it as a table', async () => {
      const result = await careen(['org', 'create', 'acme', '--label', 'Acme Telecom']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^id +acme\nlabel +Acme Telecom\nupgradeDefaults +\{\}\npasswordLogin +true\ncreatedAt +\S+\nupdatedAt +\S+\n$/,
      );
    });

    it("prints the exchange's JSON with -o json", async () => {
      const result = await careen(['org', 'show', 'acme', '-o', 'json']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        id: 'acme',
        label: 'Acme Telecom',
        upgradeDefaults: {},
        passwordLogin: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    });

    it('shows the org logged in to when no id is given', async () => {
      const result = await careen(['--output', 'json', 'org', 'show']);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: 'root' });
    });

    it('refuses a duplicate org with the 409 message', async () => {
      expect(await careen(['org', 'create', 'acme'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: org "acme" already exists (409)\n',
      });
    });

    it('lists every invalid field of a bad request', async () => {
      const result = await careen(['org', 'create', 'not.valid']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `error: invalid request (400)\n  id: id must be 1-64 letters, digits, '-' or '_', starting with a letter or digit\n`,
      );
    });

    it('says when an org does not exist', async () => {
      expect(await careen(['org', 'show', 'nowhere'])).toMatchObject({
        code: 1,
        stderr: 'error: org "nowhere" not found (404)\n',
      });
    });
  });

  describe('users', () => {
    it('adds a user with a password from stdin', async () => {
      const result = await careen(
        ['user', 'add', 'ada', '--org', 'acme', '--role', 'orgAdmin', '--password-stdin'],
        { stdin: 'ada-password\n' },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^org +acme\nusername +ada\nrole +orgAdmin\nidentityProvider *\ncreatedAt +\S+\n$/,
      );
    });

    it('adds a user with the password from CAREEN_NEW_PASSWORD, as json', async () => {
      const result = await careen(
        ['user', 'add', 'bob', '--org', 'acme', '--role', 'operator', '-o', 'json'],
        {
          env: { CAREEN_NEW_PASSWORD: 'bob-password' },
        },
      );
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        org: 'acme',
        username: 'bob',
        role: 'operator',
        identityProvider: null,
        createdAt: expect.any(String),
      });
    });

    it('refuses to add a user without a password when it cannot ask', async () => {
      const result = await careen(['user', 'add', 'cy', '--org', 'acme', '--role', 'operator']);
      expect(result).toMatchObject({
        code: 1,
        stderr:
          'error: missing password for the new user: pass --password-stdin or set CAREEN_NEW_PASSWORD\n',
      });
    });

    it('lists the users of an org in aligned columns and as json', async () => {
      const table = await careen(['user', 'list', '--org', 'acme']);
      expect(table.code).toBe(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^USERNAME +ROLE +SIGNS IN WITH +CREATED$/);
      expect(lines.slice(1).map((line) => line.split(/ +/).slice(0, 3))).toEqual([
        ['ada', 'orgAdmin', 'password'],
        ['bob', 'operator', 'password'],
      ]);
      expect(lines[1]?.indexOf('orgAdmin')).toBe(lines[0]?.indexOf('ROLE'));

      const json = await careen(['user', 'list', '--org', 'acme', '-o', 'json']);
      const answer = JSON.parse(json.stdout);
      expect(answer.total).toBe(2);
      expect(answer.items.map((user: { username: string }) => user.username)).toEqual(['ada', 'bob']);
    });

    it('shows one user', async () => {
      const result = await careen(['user', 'show', 'bob', '--org', 'acme', '-o', 'json']);
      expect(JSON.parse(result.stdout)).toMatchObject({ org: 'acme', username: 'bob', role: 'operator' });
    });

    it('refuses a duplicate user with the 409 message', async () => {
      const result = await careen(
        ['user', 'add', 'ada', '--org', 'acme', '--role', 'operator', '--password-stdin'],
        { stdin: 'another-password' },
      );
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: user "acme/ada" already exists (409)\n',
      });
    });

    it('names the field of a bad role', async () => {
      const result = await careen(
        ['user', 'add', 'cy', '--org', 'acme', '--role', 'captain', '--password-stdin'],
        { stdin: 'cy-password' },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'error: invalid request (400)\n  role: role must be one of the following values: hubAdmin, orgAdmin, operator, viewer\n',
      );
    });

    it('does not remove a user without confirmation when it cannot ask', async () => {
      const result = await careen(['user', 'remove', 'bob', '--org', 'acme']);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: not removing user "acme/bob" without confirmation: pass --yes\n',
      });
      expect((await careen(['user', 'show', 'bob', '--org', 'acme'])).code).toBe(0);
    });

    it('removes a user with --yes', async () => {
      expect(await careen(['user', 'remove', 'bob', '--org', 'acme', '--yes'])).toEqual({
        code: 0,
        stdout: 'removed user "acme/bob"\n',
        stderr: '',
      });
      expect(await careen(['user', 'show', 'bob', '--org', 'acme'])).toMatchObject({
        code: 1,
        stderr: 'error: user "acme/bob" not found (404)\n',
      });
    });
  });

  describe('credentials from the environment', () => {
    it('uses CAREEN_ORG, CAREEN_USER and CAREEN_PASSWORD without any login, acting in that org', async () => {
      const env = {
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ada',
        CAREEN_PASSWORD: 'ada-password',
      };
      const result = await careen(['user', 'list', '-o', 'json'], { env, configDir: await freshConfigDir() });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).items.map((user: { username: string }) => user.username)).toEqual([
        'ada',
      ]);
    });

    it("shows the exchange's refusal of what the caller's role may not do", async () => {
      const env = {
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ada',
        CAREEN_PASSWORD: 'ada-password',
      };
      const result = await careen(['org', 'create', 'gamma'], { env, configDir: await freshConfigDir() });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: .+ \(403\)\n$/);
    });

    it('says which credentials to check when they are refused', async () => {
      const env = {
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ada',
        CAREEN_PASSWORD: 'wrong-password',
      };
      const result = await careen(['user', 'list'], { env, configDir: await freshConfigDir() });
      expect(result).toMatchObject({
        code: 1,
        stderr: 'error: invalid credentials (401); check CAREEN_ORG, CAREEN_USER and CAREEN_PASSWORD\n',
      });
    });

    it("uses CAREEN_TOKEN, and finds the caller's org from the exchange", async () => {
      const token = await http(exchange.url, 'POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'ada', password: 'ada-password' },
      });
      const result = await careen(['org', 'show', '-o', 'json'], {
        env: { CAREEN_EXCHANGE_URL: exchange.url, CAREEN_TOKEN: token.body.accessToken },
        configDir: await freshConfigDir(),
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: 'acme' });
    });
  });

  describe('when the login is missing, expired or refused', () => {
    it('suggests logging in when there is no login', async () => {
      const result = await careen(['user', 'list'], { configDir: await freshConfigDir() });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'error: not logged in: run "careen login" (scripts may set CAREEN_API_KEY, CAREEN_TOKEN, or CAREEN_ORG, CAREEN_USER and CAREEN_PASSWORD)\n',
      );
    });

    it('says the login expired, and when, without asking the exchange', async () => {
      const dir = await freshConfigDir();
      const config = {
        exchangeUrl: exchange.url,
        org: 'root',
        username: 'root',
        accessToken: 'old',
        expiresAt: '2020-01-01T00:00:00Z',
      };
      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      const result = await careen(['org', 'show'], { configDir: dir });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: your login as root/root to ${exchange.url} expired at 2020-01-01T00:00:00Z: run "careen login" to log in again\n`,
      });
    });

    it('suggests logging in again when the exchange refuses the stored token', async () => {
      const dir = await freshConfigDir();
      const config = {
        exchangeUrl: exchange.url,
        org: 'root',
        username: 'root',
        accessToken: 'not.a.jwt',
        expiresAt: '2999-01-01T00:00:00Z',
      };
      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      const result = await careen(['org', 'show'], { configDir: dir });
      expect(result).toMatchObject({
        code: 1,
        stderr: 'error: invalid token (401); run "careen login" to log in again\n',
      });
    });

    it('forgets the token on logout but keeps the exchange and user for the next login', async () => {
      const dir = await freshConfigDir();
      await careen(
        ['login', '--exchange', exchange.url, '--org', 'root', '--user', 'root', '--password-stdin'],
        { stdin: ROOT_PASSWORD, configDir: dir },
      );

      expect(await careen(['logout'], { configDir: dir })).toEqual({
        code: 0,
        stdout: `logged out of ${exchange.url} as root/root\n`,
        stderr: '',
      });
      expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).toEqual({
        exchangeUrl: exchange.url,
        org: 'root',
        username: 'root',
      });
      expect((await careen(['org', 'show'], { configDir: dir })).stderr).toContain(
        'not logged in: run "careen login"',
      );
      expect(await careen(['logout'], { configDir: dir })).toMatchObject({
        code: 0,
        stdout: 'not logged in\n',
      });
    });
  });

  describe('failures that are not the exchange answering', () => {
    it('names the exchange it cannot reach and why', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const result = await careen(['org', 'show', 'acme', '--exchange', url], {
        env: { CAREEN_TOKEN: 'any' },
      });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: cannot reach the exchange at ${url} (ECONNREFUSED)\n`,
      });
    });

    it('exits 2 with the parser message for an unknown command or option', async () => {
      const command = await careen(['frobnicate']);
      expect(command.code).toBe(2);
      expect(command.stderr).toContain("error: unknown command 'frobnicate'");

      const option = await careen(['user', 'list', '--colour']);
      expect(option.code).toBe(2);
      expect(option.stderr).toContain("error: unknown option '--colour'");

      const format = await careen(['user', 'list', '-o', 'yaml']);
      expect(format.code).toBe(2);
      expect(format.stderr).toContain('yaml');
    });

    it('exits 2 when a required argument or option is missing', async () => {
      expect((await careen(['user', 'add', 'cy'])).stderr).toContain(
        "required option '--role <role>' not specified",
      );
      expect((await careen(['org', 'create'])).code).toBe(2);
    });
  });
});
