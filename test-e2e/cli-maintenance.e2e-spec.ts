/**
 * An operator running maintenance with `careen maintenance`, against the real exchange, agbot
 * and maintenance service: start, list, show, pause and resume, complete-host while `watch`
 * follows the session to its end (exit 0), and `watch` of an aborted session (exit 1).
 */
import { runCli } from '@careen/cli/src/run-cli';
import { eventually, useTestInfra } from '@careen/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

describe('careen maintenance', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let workDir: string;

  const careen = async (args: string[]) => {
    let output = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (output += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {
        CAREEN_EXCHANGE_URL: hub.exchange.url,
        CAREEN_MAINTENANCE_URL: hub.maintenance!.url,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ada',
        CAREEN_PASSWORD: 'ada-password',
        CAREEN_CONFIG_DIR: workDir,
      },
    });
    return { code, output, stderr };
  };

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-cli-maintenance-'));
    hub = await startMaintenanceHub(infra, { env: { CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED: 'false' } });
  });

  afterAll(async () => {
    await hub?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('starts a session, follows it to the end while hosts are completed by hand, and lists it', async () => {
    const started = await careen([
      'maintenance',
      'start',
      '--hosts',
      's1,s2',
      '--parallel',
      '2',
      '-o',
      'json',
    ]);
    expect(started).toMatchObject({ code: 0, stderr: '' });
    const id = JSON.parse(started.output).session_id as string;

    const watching = careen(['maintenance', 'watch', id, '--interval', '0.2']);
    for (const host of ['s1', 's2']) {
      // Evacuation waits for the agbot to move the host's workloads: under a full run's load it
      // has taken longer than ten seconds.
      await eventually(
        async () => {
          const shown = await careen(['maintenance', 'show', id]);
          expect(shown.output).toMatch(new RegExp(`^${host} +in-maintenance`, 'm'));
        },
        { timeoutMs: 45_000, intervalMs: 250 },
      );
      const completed = await careen(['maintenance', 'complete-host', id, host]);
      expect(completed.output).toMatch(
        new RegExp(
          `^host ${host} back in service \\((returning, .*until it runs its workloads again|done, )`,
        ),
      );
    }
    const watched = await watching;
    expect(watched.code).toBe(0);
    expect(watched.output).toContain(`session ${id} (acme): MAINTENANCE_DONE`);
    expect(watched.output).toContain('hosts 2/2 done');

    const listed = await careen(['maintenance', 'list']);
    expect(listed.output).toMatch(new RegExp(`^${id} +MAINTENANCE_DONE +2/2 done +manual`, 'm'));
    const shown = await careen(['maintenance', 'show', id]);
    expect(shown.output).toMatch(/sent +admin IN_MAINTENANCE s1/);
  });

  it('pauses, resumes and aborts; watch of the aborted session exits 1 with the reason', async () => {
    const started = await careen(['maintenance', 'start', '--rack', 'r4', '-o', 'json']);
    const id = JSON.parse(started.output).session_id as string;
    expect((await careen(['maintenance', 'pause', id])).output).toContain(`session ${id} paused`);
    expect((await careen(['maintenance', 'resume', id])).output).toContain(`session ${id} resumed`);
    expect((await careen(['maintenance', 'abort', id])).output).toContain(`session ${id} aborted`);
    const watched = await careen(['maintenance', 'watch', id]);
    expect(watched.code).toBe(1);
    expect(watched.stderr).toContain(`maintenance session ${id} failed: aborted by an admin`);
  });

  it('says what is wrong before asking, and names the maintenance service it cannot reach', async () => {
    const noHosts = await careen(['maintenance', 'start']);
    expect(noHosts.code).not.toBe(0);
    expect(noHosts.stderr).toContain('say which hosts');
    const refused = await careen(['maintenance', 'start', '--hosts', 'ghost']);
    expect(refused.stderr).toContain('no node "ghost" in the org');
    const unreachable = await careen(['maintenance', '--maintenance-url', 'http://127.0.0.1:1', 'list']);
    expect(unreachable.stderr).toContain('cannot reach the maintenance service at http://127.0.0.1:1');
  });
});
