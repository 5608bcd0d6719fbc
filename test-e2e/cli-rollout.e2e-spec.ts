/**
 * An operator steering agent rollouts with `careen`, against the real exchange and agbot and a
 * small simulated fleet: `careen nmp watch` driven in a pseudo-terminal to the end of a rollout
 * (exit 0) and to a stop on failures (exit 1, the reason shown); pause, resume, reset, history,
 * cordon and the listings.
 */
import { runCli } from '@careen/cli/src/run-cli';
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { createLogger } from '@careen/telemetry';
import { eventually, useTestInfra } from '@careen/testing';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ORG_ADMIN, startRolloutHub, type RolloutHub } from './support/rollout-hub';

const CAREEN = resolve(__dirname, '..', 'tools', 'launcher', 'careen.js');
const FAILING = 'sim-0002';
const CLEAR_SCREEN = '\u001b[H\u001b[2J';

interface Run {
  code: number;
  output: string;
}

describe('careen steering rollouts', () => {
  const infra = useTestInfra();
  let hub: RolloutHub;
  let fleet: SimulatedFleet;
  let workDir: string;
  const env = () => ({
    CAREEN_EXCHANGE_URL: hub.exchange.url,
    CAREEN_ORG: 'acme',
    CAREEN_USER: ORG_ADMIN.username,
    CAREEN_PASSWORD: ORG_ADMIN.password,
    CAREEN_CONFIG_DIR: workDir,
  });

  /** `careen …` in this process, as the tests of the other commands run it. */
  const careen = async (args: string[]): Promise<Run & { stderr: string }> => {
    let output = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (output += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: env(),
    });
    return { code, output, stderr };
  };

  /**
   * `careen …` as its own process on a pseudo-terminal, as a person at a terminal runs it; `shown`
   * settles once the output holds `text`, `ended` when the process exits.
   */
  const careenOnTerminal = (args: string[], text = '') => {
    const command = ['node', CAREEN, ...args].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      env: { ...process.env, ...env(), TERM: 'xterm' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let onShown: () => void;
    const shown = new Promise<void>((settle) => (onShown = settle));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes(text)) onShown();
    });
    const ended = new Promise<Run>((settle) =>
      child.on('close', (code) => settle({ code: code ?? 1, output })),
    );
    return { shown, ended };
  };

  const publish = (name: string, body: Record<string, unknown>) =>
    hub.call('PUT', `/v1/orgs/acme/management-policies/${name}`, {
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 3 },
      ...body,
    });

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-rollout-cli-'));
    hub = await startRolloutHub(infra);
    fleet = await startSimulatedFleet({
      exchangeUrl: hub.exchange.url,
      agbotUrl: hub.agbot.url,
      org: 'acme',
      admin: ORG_ADMIN,
      nodes: 4,
      haGroups: 2,
      initialVersion: '1.0.0',
      shouldFail: (node) => node === FAILING,
      pollSeconds: 2,
      logger: createLogger('cli-rollout', { level: 'error' }),
    });
    // Stopped before the services and the infra go: its agents' long polls would hold them up.
    infra.track(() => fleet.stop());
  });

  afterAll(async () => {
    await hub?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('watches a rollout on a terminal, redrawn in place, to its end: exit 0', async () => {
    // Held (a window years away, paused) until the watch has drawn its first screen, so that the
    // rollout is seen to move however long the command takes to start.
    expect(
      (
        await publish('healthy', {
          nodes: ['sim-0001', 'sim-0003', 'sim-0004'],
          agentUpgradePolicy: { atLeastVersion: '2.0.0', start: '2030-01-01T00:00:00Z', duration: 60 },
        })
      ).status,
    ).toBe(201);
    expect((await careen(['nmp', 'pause', 'healthy'])).code).toBe(0);
    const watch = careenOnTerminal(['nmp', 'watch', 'healthy', '--interval', '0.5'], '0 of 3 nodes done');
    await watch.shown;
    expect((await careen(['nmp', 'resume', 'healthy', '--window', '3'])).code).toBe(0);
    const run = await watch.ended;
    expect(run.code).toBe(0);
    const screens = run.output.split(CLEAR_SCREEN).filter(Boolean);
    expect(screens.length).toBeGreaterThan(1);
    expect(screens[0]).toContain('management policy healthy to 2.0.0: paused');
    const last = screens.at(-1)!.replace(/\r/g, '');
    expect(last).toContain('management policy healthy to 2.0.0: active');
    expect(last).toContain('3 of 3 nodes done (3 successful); done');
    expect(last).toMatch(/sim-group-1\s+sim-0001\s+successful\s+2\.0\.0/);
  });

  it('stops watching with exit 1 and the reason when the policy stops on failures', async () => {
    expect((await publish('doomed', { nodes: [FAILING], failureThreshold: 1 })).status).toBe(201);
    const run = await careenOnTerminal(['nmp', 'watch', 'doomed', '--interval', '0.5']).ended;
    expect(run.code).toBe(1);
    const output = run.output.replace(/\r/g, '');
    expect(output).toContain(
      'error: management policy "acme/doomed" stopped: disabled by the exchange: 1 of its nodes failed',
    );
    expect(output).toContain('"careen nmp resume doomed" goes on');
  });

  it('shows what happened to a node and to a policy, newest first', async () => {
    const node = await careen(['node', 'history', FAILING]);
    expect(node.code).toBe(0);
    expect(node.output).toMatch(
      /doomed\s+sim-0002\s+1\s+rolled-back\s+1\.0\.0 → 2\.0\.0\s+simulated health check of 2\.0\.0 failed/,
    );
    const policy = await careen(['nmp', 'history', 'doomed', '--limit', '100']);
    expect(policy.output).toMatch(/doomed\s+\(policy\)\s+disabled\s+.*failureThreshold 1/);
    expect(policy.output).toMatch(/doomed\s+\(policy\)\s+published\s+acme\/ada/);
  });

  it('pauses, resumes over a window, and resets the failed nodes', async () => {
    expect(
      (
        await publish('steered', {
          nodes: ['sim-0001'],
          agentUpgradePolicy: { atLeastVersion: '2.0.0', start: '2030-01-01T00:00:00Z', duration: 60 },
        })
      ).status,
    ).toBe(201);
    expect(await careen(['nmp', 'pause', 'steered'])).toMatchObject({
      code: 0,
      output: 'paused the rollout of policy "acme/steered"\n',
    });
    expect((await careen(['nmp', 'status', 'steered'])).output).toMatch(/state\s+paused/);
    const resumed = await careen(['nmp', 'resume', 'steered', '--window', '30']);
    expect(resumed.output).toMatch(
      /^policy "acme\/steered" is active; nodes that have not started go over 30 s from /,
    );
    expect((await careen(['nmp', 'resume', 'steered', '--window', 'soon'])).code).toBe(2);

    const reset = await careen(['nmp', 'reset', 'doomed', '--failed']);
    expect(reset).toMatchObject({ code: 0, output: 'reset 1 node(s) of policy "acme/doomed": sim-0002\n' });
    const everything = await careen(['nmp', 'reset', 'doomed']);
    expect(everything.code).toBe(1);
    expect(everything.stderr).toContain(
      'not resetting every node of policy "acme/doomed" without confirmation: pass --yes',
    );
    expect((await careen(['nmp', 'reset', 'doomed', '--node', 'sim-0001', '--failed'])).stderr).toContain(
      'give --node or --failed, not both',
    );
  });

  it('cordons and uncordons a node, and lists nodes with their version and when they were last seen', async () => {
    expect((await careen(['node', 'cordon', 'sim-0004'])).output).toBe(
      'node "acme/sim-0004" is cordoned: no new workloads\n',
    );
    await eventually(async () => {
      const listed = await careen(['node', 'list']);
      expect(listed.output).toMatch(/^ID\s+VERSION\s+LAST SEEN\s+/);
      expect(listed.output).toMatch(/sim-0004\s+2\.0\.0\s+\d+s ago\s+.*false/);
    });
    expect((await careen(['node', 'uncordon', 'sim-0004'])).output).toBe(
      'node "acme/sim-0004" takes workloads again\n',
    );
  });

  it("lists a user's own org", async () => {
    const orgs = await careen(['org', 'list']);
    expect(orgs.output).toMatch(/^ID\s+LABEL\s+CREATED\nacme\s/);
    expect(orgs.output).not.toContain('root');
  });
});
