/**
 * `careen service-account` as an org admin uses it, and the key it prints as a pipeline uses it
 * (CAREEN_API_KEY, nothing else): the key works within its scopes, says what it lacks outside
 * them, and once revoked is refused with a message that says what to do.
 */
import { runCli } from '@careen/cli/src/run-cli';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import { ROOT_PASSWORD, seedExchange, useTestInfra } from '@careen/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('careen service-account and CAREEN_API_KEY', () => {
  const infra = useTestInfra();
  let exchange: { url: string; close(): Promise<void> };
  let home: string;

  const careen = async (args: string[], env: Record<string, string>) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: { HOME: home, CAREEN_CONFIG_DIR: join(home, 'careen'), CAREEN_EXCHANGE_URL: exchange.url, ...env },
    });
    return { code, stdout, stderr };
  };
  const asAdmin = (args: string[]) =>
    careen(args, { CAREEN_ORG: 'acme', CAREEN_USER: 'ada', CAREEN_PASSWORD: 'ada-password' });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    home = await mkdtemp(join(tmpdir(), 'careen-keys-'));
    await seedExchange(exchange.url, { acme: { users: { ada: 'orgAdmin' }, nodes: ['n1', 'n2'] } });
  });

  afterAll(async () => {
    await exchange.close();
    await rm(home, { recursive: true, force: true });
  });

  it('makes an account and a key, which a pipeline uses until it is revoked', async () => {
    expect((await asAdmin(['service-account', 'create', 'pipeline', '--description', 'CI'])).code).toBe(0);
    const made = await asAdmin([
      'service-account',
      'key',
      'create',
      'pipeline',
      '--scope',
      'nodes:read,hagroups:read',
      '--days',
      '7',
    ]);
    expect(made.code).toBe(0);
    const key = /^(ck_[0-9a-f]{16}_\S{43})$/m.exec(made.stdout)?.[1];
    expect(key).toBeDefined();
    expect(made.stdout).toContain('shown once');
    const id = key!.slice(3, 19);

    const listed = await careen(['node', 'list', '-o', 'json'], { CAREEN_API_KEY: key! });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { total: number }).total).toBe(2);
    const users = await careen(['user', 'list'], { CAREEN_API_KEY: key! });
    expect(users.code).toBe(1);
    expect(users.stderr).toContain('service accounts may not call this route');

    const shown = await asAdmin(['service-account', 'show', 'pipeline']);
    expect(shown.stdout).toMatch(new RegExp(`${id}\\s+active\\s+nodes:read,hagroups:read\\s+\\(all\\)`));
    expect(shown.stdout).not.toContain(key!);

    expect((await asAdmin(['service-account', 'key', 'revoke', 'pipeline', id])).stdout).toContain(
      `key ${id} revoked at`,
    );
    const refused = await careen(['node', 'list'], { CAREEN_API_KEY: key! });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`key ${id} was revoked`);
    expect(refused.stderr).toContain('CAREEN_API_KEY was refused');
  });

  it('names what is wrong with a scope or a lifetime', async () => {
    expect((await asAdmin(['service-account', 'create', 'other'])).code).toBe(0);
    const scope = await asAdmin(['service-account', 'key', 'create', 'other', '--scope', 'users:write']);
    expect(scope.code).toBe(1);
    expect(scope.stderr).toContain('scopes: each value in scopes must be one of: nodes:read');
    const days = await asAdmin([
      'service-account',
      'key',
      'create',
      'other',
      '--scope',
      'nodes:read',
      '--days',
      '0',
    ]);
    expect(days.code).not.toBe(0);
    expect(days.stderr).toContain('a whole number from 1 to 365');
  });

  it("limits a key to projects: the org's routes refuse it, and a bad project is named", async () => {
    expect((await asAdmin(['service-account', 'create', 'vnfm'])).code).toBe(0);
    const limitedTo = (projects: string) =>
      asAdmin(['service-account', 'key', 'create', 'vnfm', '--scope', 'nodes:read', '--project', projects]);
    const made = await limitedTo('shop,ledger');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('projects shop, ledger only');
    const key = /^(ck_[0-9a-f]{16}_\S{43})$/m.exec(made.stdout)![1]!;
    const nodes = await careen(['node', 'list'], { CAREEN_API_KEY: key });
    expect(nodes.code).toBe(1);
    expect(nodes.stderr).toContain(
      'is limited to project(s) shop, ledger; this route acts beyond one project',
    );
    expect((await asAdmin(['service-account', 'show', 'vnfm'])).stdout).toMatch(/nodes:read\s+shop,ledger/);
    const bad = await limitedTo('a b');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('each project must be');
  });
});
