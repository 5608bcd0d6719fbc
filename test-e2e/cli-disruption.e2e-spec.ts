/**
 * Disruption control as an operator meets it: `careen freeze|window|budget` publish controls at
 * the exchange from JSON files, the agbot's mirror picks them up from the change stream, its gate
 * refuses a node's agent upgrade with the reason, and `careen window next` says why and when the
 * node may next go. `careen` runs as its own process from a folder of its own.
 */
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCareen, runCareenAgent } from './support/cli-process';
import { ORG_ADMIN, type RolloutHub, startRolloutHub } from './support/rollout-hub';

const TOKEN = 'edge-1-token-0123456789';

describe('careen freeze, window and budget', () => {
  const infra = useTestInfra();
  let hub: RolloutHub;
  let workDir: string;

  const careen = (args: string[]) =>
    runCareen(args, workDir, {
      HOME: workDir,
      CAREEN_CONFIG_DIR: join(workDir, 'config'),
      CAREEN_EXCHANGE_URL: hub.exchange.url,
      CAREEN_AGBOT_URL: hub.agbot.url,
      CAREEN_ORG: 'acme',
      CAREEN_USER: ORG_ADMIN.username,
      CAREEN_PASSWORD: ORG_ADMIN.password,
    });
  const file = async (name: string, body: object) => {
    const path = join(workDir, name);
    await writeFile(path, JSON.stringify(body));
    return path;
  };
  const askUpgrade = () =>
    http(hub.agbot.url, 'POST', '/v1/orgs/acme/nodes/edge-1/upgrade', {
      auth: basic('acme', 'edge-1', TOKEN),
      body: { managementPolicy: 'agents' },
    });

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-disruption-'));
    hub = await startRolloutHub(infra);
    const registered = await hub.call('PUT', '/v1/orgs/acme/nodes/edge-1', {
      token: TOKEN,
      labels: { site: 'ams' },
    });
    expect(registered.status).toBe(201);
  });

  afterAll(async () => {
    await hub?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('publishes a freeze the gate enforces, says why and until when, and lets go once it is removed', async () => {
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const freeze = await file('freeze.json', {
      selector: { labels: { site: 'ams' } },
      from: new Date(Date.now() - 60_000).toISOString(),
      until,
    });
    const published = await careen(['freeze', 'publish', 'release-day', '-f', freeze]);
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(published.stdout).toContain('release-day');
    expect((await careen(['freeze', 'list'])).stdout).toMatch(/release-day\s.*site=ams/);

    await eventually(async () => {
      const refused = await askUpgrade();
      expect(refused.status).toBe(409);
      expect(refused.body.details).toMatchObject({
        code: 'DISRUPTION_GATED',
        reason: 'freeze',
        retryAt: until,
      });
    });
    const next = await careen(['window', 'next', '--node', 'edge-1']);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain(
      `node edge-1 may not be disrupted now: freeze "release-day" until ${until}`,
    );
    expect(next.stdout).toMatch(
      new RegExp(`next start: ${until.replaceAll('.', '\\.')} \\(in (1 h 59 min|2 h)\\)`),
    );

    expect((await careen(['freeze', 'remove', 'release-day', '--yes'])).code).toBe(0);
    await eventually(async () => expect((await askUpgrade()).status).toBe(200));
    expect((await careen(['window', 'next', '--node', 'edge-1'])).stdout).toContain(
      'node edge-1 may be disrupted now',
    );
    await http(hub.agbot.url, 'DELETE', '/v1/orgs/acme/nodes/edge-1/upgrade', {
      auth: basic('acme', 'edge-1', TOKEN),
    });
  });

  it('refuses a window the exchange cannot use, naming the problem, and lists a budget', async () => {
    const bad = await file('bad-window.json', {
      days: ['mon'],
      start: '01:00',
      durationMinutes: 60,
      timeZone: 'Mars/Olympus',
    });
    const refused = await careen(['window', 'publish', 'martian', '-f', bad]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('timeZone "Mars/Olympus" is not an IANA time zone');

    const budget = await file('budget.json', {
      selector: { labels: { site: 'ams' } },
      maxUnavailable: '10%',
    });
    expect((await careen(['budget', 'publish', 'ams-tenth', '-f', budget])).code).toBe(0);
    expect((await careen(['budget', 'list'])).stdout).toMatch(/ams-tenth\s+10%\s+site=ams/);
    await eventually(async () =>
      expect((await careen(['window', 'next', '--node', 'edge-1'])).stdout).toContain(
        'budget "ams-tenth": 0 of 1 down (1 covered)',
      ),
    );
  });

  it("prints the week's window openings in each window's zone, and the freezes", async () => {
    const nights = await file('nights.json', {
      selector: { labels: { site: 'ams' } },
      days: ['tue', 'thu'],
      start: '01:00',
      durationMinutes: 240,
      cutoffMinutes: 30,
      timeZone: 'Europe/Amsterdam',
    });
    expect((await careen(['window', 'publish', 'nights', '-f', nights])).code).toBe(0);
    const calendar = await careen(['window', 'calendar', '--from', '2026-12-07T00:00:00Z', '--days', '7']);
    expect(calendar.stderr).toBe('');
    expect(calendar.stdout).toContain(
      [
        'window "nights" (site=ams), in Europe/Amsterdam:',
        '  Tue 8 Dec 01:00–05:00 (no new step after 04:30)',
        '  Thu 10 Dec 01:00–05:00 (no new step after 04:30)',
      ].join('\n'),
    );
    const bad = await careen(['window', 'calendar', '--days', '90']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('days must not be greater than 31');
    expect((await careen(['window', 'remove', 'nights', '--yes'])).code).toBe(0);
  });

  it('declares a node busy and free again, and says so', async () => {
    const busy = await careen(['node', 'busy', 'edge-1', '--reason', 'nightly backup', '--for', '600']);
    expect(busy.stderr).toBe('');
    expect(busy.stdout).toMatch(/^node edge-1 is busy until \S+: nightly backup\n$/);
    const refused = await askUpgrade();
    expect(refused.body.details).toMatchObject({ reason: 'busy' });
    expect((await careen(['window', 'next', '--node', 'edge-1'])).stdout).toContain('busy until');
    const bad = await careen(['node', 'busy', 'edge-1', '--reason', 'x', '--for', 'ever']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('seconds');

    expect((await careen(['node', 'free', 'edge-1'])).stdout).toBe('node edge-1 is free\n');
    expect((await askUpgrade()).status).toBe(200);
    await http(hub.agbot.url, 'DELETE', '/v1/orgs/acme/nodes/edge-1/upgrade', {
      auth: basic('acme', 'edge-1', TOKEN),
    });
  });

  it("lets the agent declare its own node busy and free, with the node's identity", async () => {
    const agentEnv = {
      CAREEN_AGENT_ORG: 'acme',
      CAREEN_AGENT_NODE_ID: 'edge-1',
      CAREEN_AGENT_TOKEN: TOKEN,
      CAREEN_EXCHANGE_URL: hub.exchange.url,
      CAREEN_AGBOT_URL: hub.agbot.url,
      CAREEN_AGENT_STATE_DIR: join(workDir, 'agent-state'),
    };
    const busy = await runCareenAgent(['busy', '--reason', 'restore', '--for', '300'], workDir, agentEnv);
    expect(busy.stderr).toBe('');
    expect(busy.stdout).toMatch(/^node edge-1 is busy until \S+: restore\n$/);
    expect((await askUpgrade()).body.details).toMatchObject({ reason: 'busy', control: 'node acme/edge-1' });

    const free = await runCareenAgent(['free'], workDir, agentEnv);
    expect(free.stdout).toBe('this node is free\n');
    expect((await askUpgrade()).status).toBe(200);
    await http(hub.agbot.url, 'DELETE', '/v1/orgs/acme/nodes/edge-1/upgrade', {
      auth: basic('acme', 'edge-1', TOKEN),
    });
  });
});
