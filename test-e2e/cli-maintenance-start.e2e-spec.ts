/**
 * `careen maintenance` run as its own process from a scratch folder, as an operator runs it,
 * against the real exchange, agbot and maintenance service: a flag the chosen host action does
 * not take is refused before any call, naming it, and the start says which host action will run;
 * `show` names who holds the slot a host waits for, and counts a host cut short by an abort as
 * interrupted.
 */
import { eventually, useTestInfra } from '@careen/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';
import { runCareen } from './support/cli-process';

describe('careen maintenance, as its own process', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let workDir: string;

  const careen = async (args: string[]) => {
    const run = await runCareen(args, workDir, {
      HOME: workDir,
      CAREEN_CONFIG_DIR: join(workDir, 'config'),
      CAREEN_EXCHANGE_URL: hub.exchange.url,
      CAREEN_MAINTENANCE_URL: hub.maintenance!.url,
      CAREEN_ORG: 'acme',
      CAREEN_USER: 'ada',
      CAREEN_PASSWORD: 'ada-password',
    });
    return { code: run.code, output: `${run.stdout}${run.stderr}` };
  };
  const sessions = async () =>
    (await hub.call('GET', '/v1/maintenance')).body.items as { session_id: string }[];

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-maintenance-start-'));
    hub = await startMaintenanceHub(infra, { env: { CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED: 'false' } });
  });

  afterAll(async () => {
    await hub?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it.each([
    [
      ['--seconds', '5'],
      "error: --seconds is only for --host-action simulated; this session's host action would be manual",
    ],
    [
      ['--host-action', 'external', '--seconds', '5'],
      "error: --seconds is only for --host-action simulated; this session's host action would be external",
    ],
    [
      ['--host-action', 'simulated', '--agent-version', '2.0.0'],
      "error: --agent-version is only for --host-action agent-upgrade; this session's host action would be simulated",
    ],
  ])('refuses %j before starting anything, naming the flag', async (flags, message) => {
    const run = await careen(['maintenance', 'start', '--hosts', 's1', ...flags]);
    expect(run.code).not.toBe(0);
    expect(run.output.trim()).toBe(message);
    expect(await sessions()).toEqual([]);
  });

  // Commands that do not depend on each other run together: each is seconds of process start.
  it('says which host action will run when it starts a session', async () => {
    const [simulated, manual] = await Promise.all([
      careen(['maintenance', 'start', '--hosts', 's1', '--host-action', 'simulated', '--seconds', '1']),
      careen(['maintenance', 'start', '--hosts', 's2']),
    ]);
    expect(simulated.code).toBe(0);
    expect(simulated.output).toMatch(
      /^started session [0-9a-f-]{36} over 1 host\(s\); host action simulated: each host stays in maintenance 1 s$/m,
    );

    expect(manual.code).toBe(0);
    const id = /started session ([0-9a-f-]{36})/.exec(manual.output)![1];
    expect(manual.output).toContain(
      `over 1 host(s); host action manual: each host stays in maintenance until \`careen maintenance complete-host ${id} <host>\``,
    );
    await eventually(async () => expect((await sessions()).length).toBe(2));
  });

  // Each run of the command is a process of its own, started from the sources: seconds apiece.
  // So the sessions are waited for through the API, and the command shows each state once.
  it('shows who holds the slot a host waits for, and an aborted host as interrupted', async () => {
    const idOf = (output: string) => /started session ([0-9a-f-]{36})/.exec(output)![1]!;
    const host = async (id: string) => (await hub.call('GET', `/v1/maintenance/${id}`)).body.hosts[0];
    const first = idOf((await careen(['maintenance', 'start', '--hosts', 'h1'])).output);
    await eventually(async () => expect((await host(first)).phase).toBe('in-maintenance'), {
      timeoutMs: 45_000,
    });
    const [shownFirst, startedSecond] = await Promise.all([
      careen(['maintenance', 'show', first]),
      careen(['maintenance', 'start', '--hosts', 'h2']),
    ]);
    expect(shownFirst.output).toMatch(/^h1 +pair +in-maintenance/m);
    const second = idOf(startedSecond.output);
    await eventually(async () => expect((await host(second)).waiting_for).not.toBeNull(), {
      timeoutMs: 30_000,
    });
    expect((await careen(['maintenance', 'show', second])).output).toMatch(
      new RegExp(`^h2 +pair +slot +.* slot held by h1 \\(maintenance session ${first}\\) since `, 'm'),
    );

    expect((await careen(['maintenance', 'abort', first])).code).toBe(0);
    const [shown, listed, abortedSecond] = await Promise.all([
      careen(['maintenance', 'show', first]),
      careen(['maintenance', 'list']),
      careen(['maintenance', 'abort', second]),
    ]);
    expect(shown.output).toContain('hosts 0/1 done, 1 interrupted · host action manual');
    expect(shown.output).toMatch(/^h1 +pair +interrupted +.*aborted by an admin \(while in-maintenance\)$/m);
    expect(listed.output).toMatch(
      new RegExp(`^${first} +MAINTENANCE_FAILED +0/1 done, 1 interrupted +manual`, 'm'),
    );
    expect(abortedSecond.code).toBe(0);
  }, 240_000);
});
