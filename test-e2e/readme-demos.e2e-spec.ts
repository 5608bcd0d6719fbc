/**
 * The README's three demos as an operator runs them, one after the other on one `npm start`:
 * the agent upgrade, then the deployment strategy (over nodes the first demo's policy still
 * manages), then the maintenance session. Every command is the README's, run as its own
 * `careen` process from a folder of the operator's (relative paths are that folder's), with the
 * printed URLs and passwords in place of the README's.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCareen } from './support/cli-process';
import {
  demoOfSummary,
  spawnLauncher,
  stopLauncher,
  untilOutputContains,
  freeLauncherPorts,
  launcherHome,
} from './support/launcher-process';

const ROOT_PASSWORD = 'readme-root-password';
/** The README's strategy.yaml. */
const STRATEGY = `schema: shipyard/DeploymentStrategy/v1
metadata:
  name: demo-strategy
data:
  groups:
    - name: canaries
      critical: true
      depends_on: []
      selectors:
        - node_names: [demo-0001, demo-0002]
      success_criteria:
        percent_successful_nodes: 100
    - name: fleet
      critical: false
      depends_on: [canaries]
      selectors: []
`;

jest.setTimeout(600_000);

describe("the README's demos, in one npm start", () => {
  let launcher: ChildProcess | undefined;
  let output = () => '';
  let home: string;
  let workDir: string;
  let exchangeUrl: string;
  let demoPassword: string;
  /** Where the services listen: the README's commands find them on their default ports. */
  let serviceUrls: NodeJS.ProcessEnv;

  /** One `careen` command as the README has it, run in the operator's folder. */
  const careen = (args: string[], password?: string) =>
    runCareen(args, workDir, {
      HOME: workDir,
      CAREEN_CONFIG_DIR: join(workDir, 'config'),
      ...serviceUrls,
      ...(password ? { CAREEN_PASSWORD: password } : {}),
    });

  /** Runs a command that must succeed, and gives its output. */
  const ok = async (args: string[], password?: string): Promise<string> => {
    const run = await careen(args, password);
    expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
    return run.stdout;
  };

  beforeAll(async () => {
    home = launcherHome('readme-home');
    workDir = await mkdtemp(join(tmpdir(), 'careen-readme-'));
    const env: NodeJS.ProcessEnv = {
      CAREEN_HOME: home,
      CAREEN_LOG_LEVEL: 'warn',
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_DEMO_NODES: '6',
      CAREEN_DEMO_GROUPS: '2',
      // An agent upgrade of the demo fleet takes a second, not five: the demos wait for every
      // node to be done (HA group by HA group, as ever), however long each install takes.
      CAREEN_DEMO_INSTALL_SECONDS: '1',
    };
    Object.assign(env, await freeLauncherPorts());
    const started = spawnLauncher([], env);
    launcher = started.child;
    output = started.output;
    await untilOutputContains(launcher, 'Careen is ready.', 240_000, output);
    exchangeUrl = `http://127.0.0.1:${env.CAREEN_EXCHANGE_PORT}`;
    serviceUrls = {
      CAREEN_AGBOT_URL: `http://127.0.0.1:${env.CAREEN_AGBOT_PORT}`,
      CAREEN_MAINTENANCE_URL: `http://127.0.0.1:${env.CAREEN_MAINTENANCE_SESSION_PORT}`,
      CAREEN_ORCHESTRATOR_URL: `http://127.0.0.1:${env.CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT}`,
      CAREEN_NOTIFIER_URL: `http://127.0.0.1:${env.CAREEN_NOTIFIER_PORT}`,
    };
    demoPassword = demoOfSummary(output()).password!;
  });

  afterAll(async () => {
    await stopLauncher(launcher);
    await rm(home, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  });

  it('rolls an agent upgrade through the fleet', async () => {
    await ok(['login', '--exchange', exchangeUrl, '--org', 'root', '--user', 'root'], ROOT_PASSWORD);
    await mkdir(join(workDir, 'careen-agent'));
    await ok([
      'agentpackage',
      'new',
      'careen-agent',
      '--package-version',
      '1.1.0',
      '--out',
      'careen-agent-1.1.0.tar.gz',
    ]);
    await ok(['agentpackage', 'publish', 'careen-agent-1.1.0.tar.gz']);

    await ok(['login', '--org', 'demo', '--user', 'admin'], demoPassword);
    await writeFile(
      join(workDir, 'demo-upgrade.json'),
      JSON.stringify({
        label: 'demo fleet to 1.1.0',
        enabled: true,
        agentUpgradePolicy: { atLeastVersion: '1.1.0', start: 'now', duration: 30 },
      }),
    );
    await ok(['nmp', 'publish', 'demo-upgrade', '--file', 'demo-upgrade.json', '--yes']);
    const watched = await ok(['nmp', 'watch', 'demo-upgrade']);
    expect(watched).toContain('6 of 6 nodes done (6 successful)');
    expect(await ok(['nmp', 'status', 'demo-upgrade'])).toMatch(/successful\D+6/);
  });

  it("rolls a Shipyard strategy over the nodes the first demo's policy held", async () => {
    await writeFile(join(workDir, 'strategy.yaml'), STRATEGY);
    await ok(['strategy', 'validate', 'strategy.yaml']);
    await ok(['strategy', 'publish', 'strategy.yaml']);
    // The agent-upgrade demo's policy still applies to every node: the plan says so beforehand.
    expect(await ok(['strategy', 'plan', 'demo-strategy'])).toContain('demo-upgrade');
    await ok(['nmp', 'remove', 'demo-upgrade', '--yes']);

    await ok(['login', '--org', 'root', '--user', 'root'], ROOT_PASSWORD);
    await ok([
      'agentpackage',
      'new',
      'careen-agent',
      '--package-version',
      '1.2.0',
      '--out',
      'careen-agent-1.2.0.tar.gz',
    ]);
    await ok(['agentpackage', 'publish', 'careen-agent-1.2.0.tar.gz']);
    await ok(['login', '--org', 'demo', '--user', 'admin'], demoPassword);
    const started = await ok(['rollout', 'start', 'demo-strategy', '--agent-version', '1.2.0', '-o', 'json']);
    const { id } = JSON.parse(started) as { id: string };
    const watched = await careen(['rollout', 'watch', id]);
    expect(watched).toMatchObject({ code: 0, stderr: '' });
    expect(watched.stdout).toContain(`rollout ${id} of demo-strategy v1 to 1.2.0: completed`);
  });

  it('takes an HA group out for maintenance, host by host', async () => {
    const started = await ok([
      'maintenance',
      'start',
      '--ha-group',
      'demo-group-1',
      '--host-action',
      'simulated',
      '--seconds',
      '5',
    ]);
    const id = /session ([0-9a-f-]{36})/.exec(started)?.[1];
    expect(id).toBeDefined();
    const watched = await careen(['maintenance', 'watch', id!]);
    expect(watched).toMatchObject({ code: 0, stderr: '' });
    expect(watched.stdout).toContain('MAINTENANCE_DONE');
    expect(output()).toContain('vnf manager shop: MAINTENANCE_COMPLETE → ACK_MAINTENANCE_COMPLETE');
  });
});
