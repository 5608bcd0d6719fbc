/**
 * The web console as an operator uses it: `npm start` with its demo fleet, and a real Chromium
 * signing in at the console's address, watching the demo fleet's agent rollout on the Fleet
 * and HA-group views (no page reloads), enabling and pausing a policy, starting, pausing and
 * resuming a rollout, and aborting a maintenance session, each view's screenshot taken on the
 * way; bad form input shows the services' own field errors; an expired sign-in says so.
 * Screenshots go to .careen/screenshots, or to docs/screenshots with CAREEN_WRITE_SCREENSHOTS=1.
 * Run by a step of `npm test` of its own (it starts a whole platform and a browser).
 */
import { type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { simulatedAgentPackage } from '@careen/agent/src/index';
import { eventually } from '@careen/testing';
import { launchChromium } from './support/chromium';
import {
  demoOfSummary,
  spawnLauncher,
  stopLauncher,
  untilOutputContains,
  freeLauncherPorts,
  launcherHome,
} from './support/launcher-process';

const REPO_ROOT = resolve(__dirname, '..');
const SCREENSHOTS = process.env.CAREEN_WRITE_SCREENSHOTS
  ? join(REPO_ROOT, 'docs', 'screenshots')
  : join(REPO_ROOT, '.careen', 'screenshots');
const ROOT_PASSWORD = 'console-root-password';
const NODES = ['demo-0001', 'demo-0002', 'demo-0003', 'demo-0004', 'demo-0005', 'demo-0006'];
const DESKTOP = { width: 1280, height: 800 };

jest.setTimeout(420_000);

describe('the web console', () => {
  let home: string;
  let launcher: ChildProcess | undefined;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let exchangeUrl: string;
  let agbotUrl: string;
  let demoPassword: string;
  /** The nodes the demo app runs on, as the summary names them: the maintenance session's hosts. */
  let appHosts: string[];

  /** A call to a service through the console's origin, as the demo's org admin or as nobody. */
  const api = async (method: string, path: string, body?: unknown, asAdmin = true) => {
    const headers: Record<string, string> = {};
    if (asAdmin)
      headers.authorization = `Basic ${Buffer.from(`demo/admin:${demoPassword}`).toString('base64')}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await fetch(`${consoleUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: answer.status,
      body: (await answer.json().catch(() => undefined)) as Record<string, unknown>,
    };
  };

  const screenshot = (name: string, target: Page = page) =>
    target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  const signIn = async (target: Page, org: string, username: string, password: string) => {
    await target.getByLabel('Org', { exact: true }).fill(org);
    await target.getByLabel('User', { exact: true }).fill(username);
    await target.getByLabel('Password', { exact: true }).fill(password);
    await target.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  /** The agent version each node's row of the Fleet table shows. */
  const fleetVersions = () =>
    page
      .locator('tr[data-node]')
      .evaluateAll((rows) =>
        rows.map((row) => [
          row.getAttribute('data-node'),
          row.querySelector('[data-cell="version"]')?.firstChild?.textContent?.trim(),
        ]),
      );

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    home = launcherHome('console');
    const env: NodeJS.ProcessEnv = {
      CAREEN_HOME: home,
      CAREEN_LOG_LEVEL: 'warn',
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_DEMO_NODES: String(NODES.length),
      CAREEN_DEMO_GROUPS: '2',
    };
    Object.assign(env, await freeLauncherPorts());
    const started = spawnLauncher([], env);
    launcher = started.child;
    await untilOutputContains(started.child, 'Careen is ready.', 240_000, started.output);
    consoleUrl = `http://127.0.0.1:${env.CAREEN_CONSOLE_PORT}`;
    exchangeUrl = `http://127.0.0.1:${env.CAREEN_EXCHANGE_PORT}`;
    agbotUrl = `http://127.0.0.1:${env.CAREEN_AGBOT_PORT}`;
    expect(started.output()).toContain(`Console     ${consoleUrl}`);
    const demo = demoOfSummary(started.output());
    demoPassword = demo.password!;
    appHosts = demo.appHosts;

    // The agent versions the rollouts move the demo fleet to, published by the hub admin.
    for (const version of ['1.1.0', '1.2.0']) {
      const published = await fetch(`${exchangeUrl}/v1/agent-packages`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`,
          'content-type': 'application/gzip',
        },
        body: await simulatedAgentPackage(version),
      });
      expect(published.status).toBe(201);
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    await page.goto(consoleUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await stopLauncher(launcher);
    rmSync(home, { recursive: true, force: true });
  });

  it('refuses a wrong password with a clear message, then signs in and shows the demo fleet', async () => {
    await signIn(page, 'demo', 'admin', 'not-the-password');
    await page.getByRole('alert').filter({ hasText: 'The org, user name or password is wrong.' }).waitFor();
    await screenshot('sign-in-refused');

    await signIn(page, 'demo', 'admin', demoPassword);
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    // Marks this page load: a full reload later would lose it.
    await page.evaluate('window.loadedOnce = true');
    await eventually(
      async () => expect(await fleetVersions()).toEqual(NODES.map((node) => [node, '1.0.0'])),
      {
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await screenshot('fleet');
  });

  it("follows the demo fleet's agent rollout live on the Fleet and HA-group views, one member of a group at a time", async () => {
    // A policy that selects every node: like the CLI, the console asks before enabling it.
    const created = await api('PUT', '/exchange/v1/orgs/demo/management-policies/agent-1-1', {
      label: 'Agent 1.1.0',
      enabled: false,
      agentUpgradePolicy: { atLeastVersion: '1.1.0', start: 'now', duration: 15, action: 'install' },
    });
    expect(created.status).toBe(201);
    await page.getByRole('link', { name: 'Management policies' }).click();
    await page.getByRole('link', { name: 'agent-1-1' }).click();
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Enable agent-1-1?' });
    await dialog.getByText('This policy may upgrade every node at about the same time.').waitFor();
    await screenshot('policy-enable-confirmation');
    await dialog.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByRole('button', { name: 'Disable', exact: true }).waitFor();

    // While it rolls, a member holds its group's slot and, in the same group, no other does.
    await page.getByRole('link', { name: 'HA groups' }).click();
    const holders = new Set<string>();
    await eventually(
      async () => {
        const slots = await page.locator('article[data-group] [data-slot]').allTextContents();
        expect(slots).toHaveLength(2);
        for (const slot of slots) if (slot.includes('holds the slot')) holders.add(slot.split(' ')[0]!);
        // The view marks the slot's holder among the members: never two in one group.
        for (const marked of await page
          .locator('article[data-group]')
          .evaluateAll((groups) => groups.map((group) => group.querySelectorAll('tr.holder').length)))
          expect(marked).toBeLessThanOrEqual(1);
        expect(holders.size).toBeGreaterThan(0);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await screenshot('ha-groups-rolling');
    await eventually(
      async () => {
        const versions = await page.locator('article[data-group] [data-cell="version"]').allTextContents();
        expect(versions).toEqual(NODES.map(() => '1.1.0'));
        expect(await page.locator('article[data-group] [data-slot]').allTextContents()).toEqual([
          'The slot is free.',
          'The slot is free.',
        ]);
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await screenshot('ha-groups');

    await page.getByRole('link', { name: 'Fleet' }).click();
    await eventually(
      async () => expect(await fleetVersions()).toEqual(NODES.map((node) => [node, '1.1.0'])),
      {
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
    expect(await page.evaluate('window.loadedOnce')).toBe(true);
    await page.getByRole('link', { name: 'demo-0003' }).click();
    await page.getByRole('heading', { name: 'Node demo-0003' }).waitFor();
    await page.locator('ol.timeline').getByText('agent-1-1:').first().waitFor();
    await screenshot('node');
  });

  it("lists the FleetLock reboots holding and waiting for a group's slot on the HA-group view", async () => {
    const fleetLock = (operation: 'pre-reboot' | 'steady-state', id: string) =>
      fetch(`${agbotUrl}/v1/${operation}`, {
        method: 'POST',
        headers: { 'fleet-lock-protocol': 'true' },
        body: JSON.stringify({ client_params: { id, group: 'demo-group-1' } }),
      });
    expect((await fleetLock('pre-reboot', 'demo-0001')).status).toBe(200);
    expect((await fleetLock('pre-reboot', 'demo-0003')).status).toBe(409);
    await page.getByRole('link', { name: 'HA groups' }).click();
    const group = page.locator('article[data-group="demo-group-1"]');
    await group.locator('[data-fleetlock-holders]').getByText('demo-0001').waitFor();
    await group.locator('[data-fleetlock-waiters]').getByText('demo-0003').waitFor();
    await screenshot('ha-groups-fleetlock');
    // Once the holder gave the slot back, the waiter takes it when it asks again, and waits no more.
    expect((await fleetLock('steady-state', 'demo-0001')).status).toBe(200);
    expect((await fleetLock('pre-reboot', 'demo-0003')).status).toBe(200);
    await group.locator('[data-fleetlock-waiters]').waitFor({ state: 'detached' });
    await group.locator('[data-fleetlock-holders]').getByText('demo-0003').waitFor();
    expect((await fleetLock('steady-state', 'demo-0003')).status).toBe(200);
    await group.locator('[data-fleetlock-holders]').waitFor({ state: 'detached' });
  });

  it("draws the week's windows and freezes on the Disruption view, with the budgets and alert gates", async () => {
    // Over nodes of a site the demo has none of: the demo fleet goes on as before.
    const selector = { labels: { site: 'nowhere' } };
    const from = new Date(Date.now() + 2 * 86_400_000);
    const controls: [string, Record<string, unknown>][] = [
      [
        'windows/nights',
        {
          selector,
          days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
          start: '01:00',
          durationMinutes: 240,
          cutoffMinutes: 60,
          timeZone: 'Europe/Amsterdam',
        },
      ],
      [
        'freezes/hold',
        { selector, from: from.toISOString(), until: new Date(from.getTime() + 86_400_000).toISOString() },
      ],
      ['budgets/tenth', { selector, maxUnavailable: '10%' }],
      [
        'gates/health',
        {
          selector,
          prometheusUrl: 'http://prometheus.invalid:9090',
          matchers: ['alertname="NodeDown"'],
          scope: 'node',
          soakSeconds: 300,
        },
      ],
    ];
    for (const [path, body] of controls)
      expect((await api('PUT', `/exchange/v1/orgs/demo/${path}`, body)).status).toBe(201);

    await page.getByRole('link', { name: 'Disruption' }).click();
    const nights = page.locator('[data-control="window:nights"]');
    await nights.waitFor();
    await expect(nights.locator('.calendar-bar').count()).resolves.toBeGreaterThanOrEqual(6);
    await expect(nights.locator('.calendar-cutoff').count()).resolves.toBeGreaterThanOrEqual(6);
    await expect(nights.textContent()).resolves.toContain('site=nowhere · Europe/Amsterdam');
    const hold = page.locator('[data-control="freeze:hold"] .calendar-bar');
    await expect(hold.getAttribute('aria-label')).resolves.toContain(`frozen from ${from.toISOString()}`);
    await expect(page.locator('table[data-budgets]').textContent()).resolves.toContain(
      'tenth10%site=nowhere',
    );
    await expect(page.locator('table[data-gates]').textContent()).resolves.toContain('300 s');
    await screenshot('disruption');

    for (const [path] of controls)
      expect((await api('DELETE', `/exchange/v1/orgs/demo/${path}`)).status).toBe(204);
    await nights.waitFor({ state: 'detached' });
  });

  it("shows a policy's rollup, and the exchange's field errors next to the field when resuming it", async () => {
    await page.getByRole('link', { name: 'Management policies' }).click();
    await page.locator('tr[data-policy="agent-1-1"]').getByText('successful').waitFor();
    await screenshot('policies');
    await page.getByRole('link', { name: 'agent-1-1' }).click();
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    const window = page.getByLabel('Resume over (seconds)');
    await window.fill('soon');
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByText('window must be an integer number').waitFor();
    expect(await window.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('alert').filter({ hasText: 'Correct the field marked below.' }).waitFor();
    await screenshot('policy-field-errors');
    await window.fill('60');
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    expect(await page.getByText('window must be an integer number').count()).toBe(0);
    // The fleet is at 1.1.0 now: the next rollout's policies have the nodes to themselves.
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByRole('button', { name: 'Enable', exact: true }).waitFor();
    await screenshot('policy');
  });

  it('starts a rollout of a deployment strategy, pauses and resumes it, and draws its groups to the end', async () => {
    const strategy = await api('POST', '/orchestrator/v1/strategies', {
      name: 'waves',
      groups: [
        { name: 'canary', critical: true, depends_on: [], selectors: [{ node_names: ['demo-0001'] }] },
        {
          name: 'group-1',
          critical: false,
          depends_on: ['canary'],
          selectors: [{ node_names: ['demo-0003', 'demo-0005'] }],
        },
        {
          name: 'group-2',
          critical: false,
          depends_on: ['canary'],
          selectors: [{ node_names: ['demo-0002', 'demo-0004', 'demo-0006'] }],
        },
      ],
    });
    expect(strategy.status).toBe(201);
    await page.getByRole('link', { name: 'Rollouts' }).click();
    await page.locator('summary', { hasText: 'Start a rollout' }).click();
    await page.getByLabel('Agent version').fill('1.2');
    await page.getByLabel('Phase timeout (seconds)').fill('5');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText('version must be a semantic version (1.2.3)').waitFor();
    await page.getByText('phase_timeout_seconds must not be less than 10').waitFor();
    await screenshot('rollout-field-errors');

    await page.getByLabel('Agent version').fill('1.2.0');
    await page.getByLabel('Phase timeout (seconds)').fill('');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('heading', { name: 'Rollout waves v1 → 1.2.0' }).waitFor();
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.locator('[data-rollout-state]').getByText('paused', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    const state = page.locator('[data-rollout-state] .badge').first();
    await eventually(async () => expect(await state.textContent()).toBe('completed'), {
      timeoutMs: 180_000,
      intervalMs: 500,
    });
    expect(await page.locator('svg g[data-group] .box-text').allTextContents()).toEqual([
      'succeeded · 1/1',
      'succeeded · 2/2',
      'succeeded · 3/3',
    ]);
    await screenshot('rollout');
    await page.getByRole('link', { name: '← Rollouts' }).click();
    await page.locator('tr[data-rollout]').first().getByText('completed').waitFor();
    await screenshot('rollouts');
  });

  it("starts a maintenance session, shows its hosts and projects' events, and aborts it", async () => {
    await page.getByRole('link', { name: 'Maintenance' }).click();
    await page.locator('summary', { hasText: 'Start a maintenance session' }).click();
    await page.getByLabel('Hosts at a time').fill('0');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText('name at least one host').waitFor();
    await page.getByLabel('Hosts', { exact: true }).fill(appHosts.slice(0, 2).join(', '));
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText('max_parallel_hosts must not be less than 1').waitFor();
    await screenshot('maintenance-field-errors');
    await page.getByLabel('Hosts at a time').fill('');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('heading', { name: /^Maintenance session / }).waitFor();
    // The project's events and the VNF manager's replies come onto its timeline.
    await page
      .locator('article[data-project="shop"] li.timeline-received')
      .first()
      .waitFor({ timeout: 60_000 });
    await screenshot('maintenance-session');
    // A pause is on the timeline as what it is, not as a bare `note`.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.locator('ol.timeline li').getByText('session paused', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Abort session' }).click();
    await page
      .getByRole('dialog', { name: 'Abort this maintenance session?' })
      .getByRole('button', { name: 'Abort session' })
      .click();
    await page.locator('[data-session-state]').getByText('MAINTENANCE_FAILED').waitFor({ timeout: 60_000 });
    await page.locator('[data-session-state]').getByText('aborted by an admin').waitFor();
    expect(await page.getByRole('button', { name: 'Abort session' }).count()).toBe(0);
    await screenshot('maintenance-aborted');
    await page.getByRole('link', { name: '← Maintenance sessions' }).click();
    await page.locator('tr[data-session]').first().getByText('MAINTENANCE_FAILED').waitFor();
    await screenshot('maintenance');
  });

  it('shows who aborted the session on the Audit view, and verifies the chain', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByLabel('Action').fill('session.abort');
    await page.getByRole('button', { name: 'Show' }).click();
    const aborted = page.locator('table[data-audit] tbody tr').first();
    await aborted.getByText('session.abort').waitFor({ timeout: 30_000 });
    await expect(aborted.textContent()).resolves.toContain('demo/admin');
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await page
      .locator('[data-verdict]')
      .getByText(/^Verified: \d+ records chain/)
      .waitFor();
    await screenshot('audit');
  });

  it('is reachable from the keyboard and readable at phone width', async () => {
    await page.getByRole('link', { name: 'Fleet' }).click();
    const focused = () => page.evaluate('document.activeElement?.textContent');
    // From the brand, Tab reaches the views; Shift+Tab the link that skips to the content.
    await page.getByText('Careen', { exact: true }).click();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Fleet');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('content');
    expect(await page.evaluate('window.location.hash')).toBe('#/nodes');
    await page.getByText('Careen', { exact: true }).click();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('HA groups');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'HA groups' }).waitFor();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await phone.goto(consoleUrl);
    await signIn(phone, 'demo', 'admin', demoPassword);
    await phone.locator('tr[data-node]').first().waitFor();
    // Nothing but the table's own scroller is wider than the screen.
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot('fleet-phone', phone);
    await phone.close();
  });

  it('lets a hub admin switch orgs, and sign out', async () => {
    const admin = await browser.newPage({ viewport: DESKTOP });
    await admin.goto(consoleUrl);
    await signIn(admin, 'root', 'root', ROOT_PASSWORD);
    await admin.getByRole('heading', { name: 'Fleet' }).waitFor();
    await admin.getByText('Org root has no nodes yet.').waitFor();
    await admin.getByLabel('Org shown').selectOption('demo');
    await admin
      .locator('tr[data-node]')
      .nth(NODES.length - 1)
      .waitFor();
    await admin.getByRole('button', { name: 'Sign out', exact: true }).click();
    await admin.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // Signing out oneself needs no notice.
    expect(await admin.locator('.notice').count()).toBe(0);
    await admin.close();
  });

  it('signs out with a clear message once the sign-in expires', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.clock.install();
    const expiring = await context.newPage();
    await expiring.goto(consoleUrl);
    await signIn(expiring, 'demo', 'admin', demoPassword);
    await expiring.getByRole('heading', { name: 'Fleet' }).waitFor();
    // Access tokens are renewed as they run out; the login itself lasts 12 hours.
    await context.clock.fastForward('12:01:00');
    await expiring.getByText(/Your sign-in expired at .*\. Sign in again to go on\./).waitFor();
    await expiring.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await screenshot('sign-in-expired', expiring);
    await context.close();
  });

  it('signs out, saying why, when a service no longer accepts the token', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const revoked = await context.newPage();
    await revoked.goto(consoleUrl);
    await signIn(revoked, 'demo', 'admin', demoPassword);
    await revoked.getByRole('heading', { name: 'Fleet' }).waitFor();
    // From now on the browser sends a token the exchange never issued, as after a key rotation.
    await context.route('**/exchange/v1/orgs/**', (route) =>
      route.continue({ headers: { ...route.request().headers(), authorization: 'Bearer not.a.token' } }),
    );
    // Opening another view makes requests at once; the feed's next poll or a refresh may already
    // have signed out, so the view is opened by its address rather than by a link that may be gone.
    await revoked.evaluate("window.location.hash = '#/ha-groups'");
    await revoked.getByText(/^You were signed out: .+\. Sign in again to go on\.$/).waitFor();
    await revoked.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await context.close();
  });

  it('adds no way around the services: the APIs under the console answer only to credentials', async () => {
    expect((await api('GET', '/exchange/v1/orgs/demo/nodes', undefined, false)).status).toBe(401);
    expect((await api('GET', '/agbot/v1/orgs/demo/upgrade-groups', undefined, false)).status).toBe(401);
    expect((await api('GET', '/maintenance/v1/maintenance?org=demo', undefined, false)).status).toBe(401);
    expect((await api('GET', '/orchestrator/v1/rollouts', undefined, false)).status).toBe(401);
    expect((await api('GET', '/exchange/v1/orgs/demo/nodes')).status).toBe(200);
    // Its own paths only read the app's files.
    expect((await api('POST', '/v1/orgs/demo/nodes', {}, true)).status).toBe(405);
    expect((await api('DELETE', '/index.html', undefined, true)).status).toBe(405);
  });
});
