/**
 * `careen nmp watch` into a pipe, run as its own process against the real exchange and agbot
 * and two simulated agents of one HA group: it appends one line per change, never a whole
 * snapshot again; it ends with exit 3 when a halted group leaves nothing to do but wait for an
 * operator, naming the command that goes on; and a reader that goes away (`| head -1`) ends it
 * quietly, with no stack trace.
 */
import { eventually, useTestInfra } from '@careen/testing';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKEN, type BrokenMemberHub, GROUP, PEER, startBrokenMemberHub } from './support/broken-member-hub';
import { CAREEN, runCareen } from './support/cli-process';
import { ORG_ADMIN } from './support/rollout-hub';

const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

describe('careen nmp watch into a pipe', () => {
  const infra = useTestInfra();
  let fixture: BrokenMemberHub;
  let workDir: string;

  const env = () => ({
    PATH: process.env.PATH,
    HOME: workDir,
    CAREEN_CONFIG_DIR: join(workDir, 'config'),
    CAREEN_EXCHANGE_URL: fixture.hub.exchange.url,
    CAREEN_ORG: 'acme',
    CAREEN_USER: ORG_ADMIN.username,
    CAREEN_PASSWORD: ORG_ADMIN.password,
  });

  /** `careen …` as its own process, its stdout and stderr pipes read to the end. */
  const careen = (args: string[]) => runCareen(args, workDir, env());

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-watch-'));
    fixture = await startBrokenMemberHub(infra, 'cli-watch');
  });

  afterAll(async () => {
    await fixture?.hub.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('prints each change once and exits 3 when a halted HA group waits for an operator', async () => {
    // The broken member goes first and halts its group; the peer then joins the policy and waits.
    expect((await fixture.publish('stuck', [BROKEN])).status).toBe(201);
    await eventually(
      async () => expect((await fixture.reportOf(BROKEN, 'stuck')).status).toBe('rollback-failed'),
      {
        timeoutMs: 60_000,
      },
    );
    const { error } = await fixture.reportOf(BROKEN, 'stuck');
    expect((await fixture.publish('stuck', [BROKEN, PEER])).status).toBe(200);

    const watched = await careen(['nmp', 'watch', 'stuck', '--interval', '0.5']);

    expect(watched.code).toBe(3);
    const lines = watched.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line === 'management policy stuck to 2.0.0: active')).toHaveLength(1);
    expect(lines).toContain(`halted: HA group ${GROUP} waits for ${BROKEN} (rollback-failed: ${error})`);
    expect(lines).toContain(`node ${BROKEN} (HA group ${GROUP}): rollback-failed at 1.0.0: ${error}`);
    // No snapshot again: no table header, and no line printed twice in a row.
    expect(watched.stdout).not.toMatch(/HA GROUP\s+NODE/);
    expect(lines.filter((line, index) => line === lines[index - 1])).toEqual([]);
    expect(watched.stderr).toContain(
      'error: management policy "acme/stuck" waits for an operator: 1 of 2 nodes not done, held by a halted HA group',
    );
    expect(watched.stderr).toContain(`careen nmp reset stuck --node ${BROKEN}" lets the group go on`);
    expect(watched.stderr).not.toMatch(STACK_FRAME);
  });

  it('ends quietly, with no stack trace, once the reader of its output has gone', async () => {
    // Of a node that does not exist: nothing ever happens, so the watch runs until its reader leaves.
    expect((await fixture.publish('quiet', ['edge-to-come'], '2030-01-01T00:00:00Z')).status).toBe(201);
    const child = spawn(process.execPath, [CAREEN, 'nmp', 'watch', 'quiet', '--interval', '0.5'], {
      cwd: workDir,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ended = new Promise<number | null>((settle) => child.on('close', (code) => settle(code)));
    // `| head -1`: the first line read, then the pipe closed.
    await new Promise<void>((settle) => child.stdout.once('data', () => settle()));
    child.stdout.destroy();

    // A change for the watch to print into the closed pipe.
    expect((await careen(['nmp', 'pause', 'quiet'])).code).toBe(0);

    expect(await ended).toBe(141);
    expect(stderr).toBe('');
  });
});
