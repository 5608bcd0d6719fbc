/**
 * `careen login --sso` as a person runs it, from a folder of theirs, against an exchange whose
 * org signs in through a real OpenID provider: the command shows the provider's page and code,
 * the person approves it there (from another device, as far as the CLI knows), and the login is
 * kept. Taken out of their groups, the person's next renewal is refused and the CLI says to
 * log in again.
 */
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import {
  eventually,
  ROOT_PASSWORD,
  seedExchange,
  startTestIdentityProvider,
  useTestInfra,
  type TestIdentityProvider,
} from '@careen/testing';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAREEN, runCareen } from './support/cli-process';

describe('careen sso and careen login --sso', () => {
  const infra = useTestInfra();
  let idp: TestIdentityProvider;
  let exchange = '';
  let home = '';
  let close = async () => {};
  const env = () => ({ HOME: home, CAREEN_CONFIG_DIR: join(home, 'careen') });

  beforeAll(async () => {
    idp = await startTestIdentityProvider([{ client_id: 'careen' }]);
    const service = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_SSO_ALLOW_HTTP: 'true',
    });
    exchange = service.url;
    close = () => service.close();
    home = await mkdtemp(join(tmpdir(), 'careen-sso-'));
    await seedExchange(exchange, { acme: { users: { ada: 'orgAdmin' } } });
    await idp.setGroups('alice', ['ops']);
  });
  afterAll(async () => {
    await close();
    await idp?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('lets an org admin set single sign-on with careen sso set, and read it back', async () => {
    const login = await runCareen(['login', '--exchange', exchange, '--org', 'acme', '--user', 'ada'], home, {
      ...env(),
      CAREEN_PASSWORD: 'ada-password',
    });
    expect(login.code).toBe(0);
    const badMapping = await runCareen(
      ['sso', 'set', '--issuer', idp.issuer, '--client-id', 'careen', '--map', 'ops'],
      home,
      env(),
    );
    expect(badMapping).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--map ops: write <group>=<role>'),
    });

    const set = await runCareen(
      [
        'sso',
        'set',
        '--issuer',
        idp.issuer,
        '--client-id',
        'careen',
        '--scope',
        'openid,profile,groups',
      ].concat(['--map', 'ops=operator', '--map', 'noc=viewer', '--no-password-login']),
      home,
      env(),
    );
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toBe(
      `org "acme" signs in through ${idp.issuer}; passwords refused\n  ops → operator\n  noc → viewer\n`,
    );
    const shown = await runCareen(['sso', 'show', '-o', 'json'], home, env());
    expect(JSON.parse(shown.stdout)).toMatchObject({
      issuer: idp.issuer,
      clientSecretSet: false,
      scopes: ['openid', 'profile', 'groups'],
      passwordLogin: false,
    });
    // The admin's own password no longer opens a login.
    const again = await runCareen(['login', '--exchange', exchange, '--org', 'acme', '--user', 'ada'], home, {
      ...env(),
      CAREEN_PASSWORD: 'ada-password',
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('password sign-in is switched off for org "acme"');
  });

  it('shows the code, waits for its approval at the provider, and keeps the login', async () => {
    const login = spawn(
      process.execPath,
      [CAREEN, 'login', '--sso', '--org', 'acme', '--exchange', exchange],
      {
        cwd: home,
        env: { PATH: process.env.PATH, ...env() },
      },
    );
    let stdout = '';
    let stderr = '';
    login.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    login.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => login.once('exit', done));

    // The code and the wait are two writes: they may reach the pipe one after the other.
    const shown = await eventually(
      async () => {
        expect(stderr).toContain('waiting for the sign-in to be approved');
        return /open (http\S+)/.exec(stderr)![1]!;
      },
      { timeoutMs: 30_000 },
    );
    expect(stderr).toMatch(/check that it shows the code [A-Z]{4}-[A-Z]{4}/);
    await idp.signIn(shown, 'alice');

    expect(await exited).toBe(0);
    expect(stdout).toMatch(new RegExp(`^logged in to ${exchange} as acme/alice until \\S+Z\\n$`));
    const stored = JSON.parse(await readFile(join(home, 'careen', 'config.json'), 'utf8'));
    expect(stored).toMatchObject({ org: 'acme', username: 'alice', refreshToken: expect.any(String) });

    const shownOrg = await runCareen(['org', 'show', '-o', 'json'], home, env());
    expect(shownOrg.code).toBe(0);
    expect(JSON.parse(shownOrg.stdout)).toMatchObject({ id: 'acme', passwordLogin: false });
  });

  it('is refused at the next renewal once the person is out of every mapped group, saying to log in again', async () => {
    await idp.setGroups('alice', ['sales']);
    const file = join(home, 'careen', 'config.json');
    const stored = JSON.parse(await readFile(file, 'utf8'));
    // Past the access token's quarter hour: the next command renews the login.
    await writeFile(file, JSON.stringify({ ...stored, expiresAt: '2020-01-01T00:00:00Z' }), { mode: 0o600 });

    const refused = await runCareen(['org', 'show'], home, env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the exchange ended your login as acme/alice');
    expect(refused.stderr).toContain('alice is in none of the groups that give a role in org "acme"');
    expect(refused.stderr).toContain('careen login');
  });

  it('says what is wrong with --sso and a password, or an org without a provider', async () => {
    const mixed = await runCareen(
      ['login', '--sso', '--org', 'acme', '--user', 'x', '--exchange', exchange],
      home,
      env(),
    );
    expect(mixed).toMatchObject({ code: 1, stderr: expect.stringContaining('--sso takes no --user') });
    const none = await runCareen(['login', '--sso', '--org', 'root', '--exchange', exchange], home, env());
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('org "root" has no single sign-on configured');
  });
});
