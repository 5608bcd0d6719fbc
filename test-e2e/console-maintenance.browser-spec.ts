/**
 * Maintenance in the web console as an operator uses it: `npm start` with its demo fleet and a
 * real Chromium. The start form offers the host actions and says what each does; a manual
 * session's host is completed with the session page's button; a host waiting for its HA
 * group's slot names the holder, on the session page and in the HA-group view; an aborted
 * session counts the host that was in maintenance as interrupted, the same on both pages. Last,
 * with every agent package removed, a policy's page names the nodes left without one.
 * Run by a step of `npm test` of its own (it starts a whole platform and a browser).
 */
import { type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './support/chromium';
import {
  demoOfSummary,
  spawnLauncher,
  stopLauncher,
  untilOutputContains,
  freeLauncherPorts,
  launcherHome,
} from './support/launcher-process';

const ROOT_PASSWORD = 'console-maintenance-root-password';
const DESKTOP = { width: 1280, height: 800 };
/** Evacuation waits for the demo's workloads to be placed elsewhere. */
const UNDER_WAY_MS = 120_000;

jest.setTimeout(480_000);

describe('the web console: maintenance', () => {
  let home: string;
  let launcher: ChildProcess | undefined;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let demoPassword: string;
  /** Two members of one demo HA group, and its name. */
  let group: string;
  let first: string;
  let second: string;

  const api = async (method: string, path: string, body?: unknown, user = `demo/admin:${demoPassword}`) => {
    const answer = await fetch(`${consoleUrl}${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(user).toString('base64')}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: answer.status, body: (await answer.json().catch(() => undefined)) as never };
  };
  const hostRow = (host: string) => page.locator(`tr[data-host="${host}"]`);
  const openSession = async (id: string) => {
    await page.getByRole('link', { name: 'Maintenance', exact: true }).click();
    await page.getByRole('link', { name: id.slice(0, 8), exact: true }).click();
    await page.getByRole('heading', { name: `Maintenance session ${id.slice(0, 8)}` }).waitFor();
  };

  beforeAll(async () => {
    home = launcherHome('console-maintenance');
    const env: NodeJS.ProcessEnv = {
      CAREEN_HOME: home,
      CAREEN_LOG_LEVEL: 'warn',
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_DEMO_NODES: '6',
      CAREEN_DEMO_GROUPS: '2',
    };
    Object.assign(env, await freeLauncherPorts());
    const started = spawnLauncher([], env);
    launcher = started.child;
    await untilOutputContains(started.child, 'Careen is ready.', 240_000, started.output);
    consoleUrl = `http://127.0.0.1:${env.CAREEN_CONSOLE_PORT}`;
    demoPassword = demoOfSummary(started.output()).password!;
    const groups = (await api('GET', '/exchange/v1/orgs/demo/hagroups')).body as {
      items: { name: string; members: string[] }[];
    };
    const pair = groups.items.find((each) => each.members.length >= 2)!;
    [group, first, second] = [pair.name, pair.members[0]!, pair.members[1]!];

    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    await page.goto(consoleUrl);
    await page.getByLabel('Org', { exact: true }).fill('demo');
    await page.getByLabel('User', { exact: true }).fill('admin');
    await page.getByLabel('Password', { exact: true }).fill(demoPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await stopLauncher(launcher);
    rmSync(home, { recursive: true, force: true });
  });

  it('offers each host action with what it does, and completes a manual host with a button', async () => {
    await page.getByRole('link', { name: 'Maintenance', exact: true }).click();
    await page.locator('summary', { hasText: 'Start a maintenance session' }).click();
    const hostAction = page.getByLabel('Host action');
    await hostAction.selectOption('simulated');
    await page.getByText('each host stays in maintenance for the seconds given').waitFor();
    await page.getByLabel('Seconds in maintenance').waitFor();
    await hostAction.selectOption('agent-upgrade');
    await page.getByLabel('Agent version').waitFor();
    expect(await page.getByLabel('Seconds in maintenance').count()).toBe(0);
    await hostAction.selectOption('manual');
    await page
      .getByText('each host stays in maintenance until you complete it on the session page')
      .waitFor();
    await page.getByLabel('Hosts', { exact: true }).fill(first);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('heading', { name: /^Maintenance session / }).waitFor();
    await page.locator('[data-session-state]').getByText('manual').waitFor();

    await hostRow(first)
      .and(page.locator('[data-phase="in-maintenance"]'))
      .waitFor({ timeout: UNDER_WAY_MS });
    await page.getByRole('button', { name: `Complete host ${first}` }).click();
    await hostRow(first).and(page.locator('[data-phase="done"]')).waitFor();
    await page.locator('[data-hosts-summary]').getByText('1/1 done').waitFor();
  });

  it('shows the instance groups a VNF manager declared, with their budget and instances', async () => {
    const group = {
      project_id: 'shop',
      group_name: 'shop-ha',
      anti_affinity_group: true,
      max_instances_per_host: 1,
      max_impacted_members: 1,
      recovery_time: 30,
      resource_mitigation: true,
    };
    expect((await api('PUT', '/maintenance/v1/instance_group/shop-ha-1', group)).status).toBe(200);
    const instance = {
      project_id: 'shop',
      group_id: 'shop-ha-1',
      instance_name: 'shop web',
      max_interruption_time: 120,
      migration_type: 'MIGRATE',
      resource_mitigation: true,
      lead_time: 40,
    };
    expect((await api('PUT', `/maintenance/v1/instance/shop-web@${first}`, instance)).status).toBe(200);
    await page.getByRole('link', { name: 'Maintenance', exact: true }).click();
    const row = page.getByRole('table', { name: 'Instance groups' }).locator('tr[data-group="shop-ha-1"]');
    await row.getByText(`shop-web@${first}`).waitFor();
    expect(await row.locator('[data-max-impacted]').textContent()).toBe('1');
    await row.getByText('by demo/admin').waitFor();
  });

  it('names who holds the slot a host waits for, and counts an aborted host as interrupted', async () => {
    const holder = (await api('POST', '/maintenance/v1/maintenance', { hosts: [first] })).body as {
      session_id: string;
    };
    await openSession(holder.session_id);
    await hostRow(first)
      .and(page.locator('[data-phase="in-maintenance"]'))
      .waitFor({ timeout: UNDER_WAY_MS });
    const waiter = (await api('POST', '/maintenance/v1/maintenance', { hosts: [second] })).body as {
      session_id: string;
    };
    await openSession(waiter.session_id);
    await hostRow(second)
      .locator('[data-slot-holder]')
      .getByText(`slot held by ${first} (maintenance session ${holder.session_id.slice(0, 8)}) since`)
      .waitFor({ timeout: 30_000 });

    await page.getByRole('link', { name: 'HA groups' }).click();
    await page
      .locator(`article[data-group="${group}"] [data-slot-waiters]`)
      .getByText(`${second} (session ${waiter.session_id.slice(0, 8)}) since`)
      .waitFor({ timeout: 30_000 });

    await openSession(holder.session_id);
    await page.getByRole('button', { name: 'Abort session' }).click();
    await page
      .getByRole('dialog', { name: 'Abort this maintenance session?' })
      .getByRole('button', { name: 'Abort session' })
      .click();
    await hostRow(first).and(page.locator('[data-phase="interrupted"]')).waitFor();
    await hostRow(first).getByText('interrupted while in-maintenance: aborted by an admin').waitFor();
    await page.locator('[data-hosts-summary]').getByText('0/1 done, 1 interrupted').waitFor();

    await page.getByRole('link', { name: '← Maintenance sessions' }).click();
    await page
      .locator(`tr[data-session="${holder.session_id}"] [data-hosts-summary]`)
      .getByText('0/1 done, 1 interrupted')
      .waitFor();
    expect(await api('DELETE', `/maintenance/v1/maintenance/${waiter.session_id}`)).toMatchObject({
      status: 200,
    });
  });

  it('names the nodes of a policy whose agent package is gone as no-package, saying why', async () => {
    // A node with no agent yet: it has no status for the policy, and waits for the package.
    expect(
      (await api('PUT', '/exchange/v1/orgs/demo/nodes/spare-1', { token: 'spare-1-token' })).status,
    ).toBe(201);
    const followsCurrent = { enabled: true, nodes: ['spare-1'], agentUpgradePolicy: {} };
    expect(
      (await api('PUT', '/exchange/v1/orgs/demo/management-policies/follows-current', followsCurrent)).status,
    ).toBe(201);
    const asRoot = `root/root:${ROOT_PASSWORD}`;
    const packages = (await api('GET', '/exchange/v1/agent-packages', undefined, asRoot)).body as {
      items: { version: string }[];
    };
    for (const { version } of packages.items)
      expect((await api('DELETE', `/exchange/v1/agent-packages/${version}`, undefined, asRoot)).status).toBe(
        204,
      );

    await page.getByRole('link', { name: 'Management policies' }).click();
    await page.getByRole('link', { name: 'follows-current' }).click();
    const notice = page.locator('[data-no-package]');
    await notice.getByText('no agent package is published').waitFor();
    await notice.getByRole('link', { name: 'spare-1' }).waitFor();
  });
});
