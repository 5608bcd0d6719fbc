/**
 * An operator driving deployment strategies, rollouts and single-node upgrades with `careen`
 * against the real exchange, agbot and orchestrator and Shipyard's example fleet of simulated agents:
 * validate (offline), publish, show, plan, start, watch to the end, and the upgrade history.
 */
import { runCli } from '@careen/cli/src/run-cli';
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, useTestInfra } from '@careen/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROLES, SEED_STRATEGY, startOrchestratorHub, type OrchestratorHub } from './support/orchestrator-hub';

describe('careen strategy, rollout and upgrade', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let workDir: string;

  const careen = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {
        CAREEN_EXCHANGE_URL: hub.rollouts.exchange.url,
        CAREEN_ORCHESTRATOR_URL: orchestrator.url,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ada',
        CAREEN_PASSWORD: 'ada-password',
        CAREEN_CONFIG_DIR: workDir,
      },
    });
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-orchestrator-cli-'));
    await writeFile(join(workDir, 'strategy.yaml'), SEED_STRATEGY);
    await writeFile(
      join(workDir, 'bad.yaml'),
      'name: bad\ngroups:\n  - {name: a, critical: true, depends_on: [b], selectors: []}\n  - {name: b, critical: yes, depends_on: [a]}\n',
    );
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
  });

  afterAll(async () => {
    await orchestrator?.close();
    await hub?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('validates a strategy file offline, naming every problem', async () => {
    const valid = await careen(['strategy', 'validate', join(workDir, 'strategy.yaml')]);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toContain('strategy "deployment-strategy" is valid: 5 group(s) in 3 stage(s)');
    expect(valid.stdout).toContain('1. monitoring-nodes, ntp-node');
    const invalid = await careen(['strategy', 'validate', join(workDir, 'bad.yaml')]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('bad.yaml is not a valid deployment strategy');
    expect(invalid.stderr).toContain('groups[1].critical: required: true or false');
    expect(invalid.stderr).toContain('groups[1].selectors: required: a list of selectors');
  });

  it('publishes, shows and plans a strategy, rolls it and watches it to the end', async () => {
    expect((await careen(['strategy', 'publish', join(workDir, 'strategy.yaml')])).stdout).toBe(
      'published strategy "deployment-strategy" version 1\n',
    );
    expect((await careen(['strategy', 'publish', join(workDir, 'strategy.yaml')])).stdout).toBe(
      'strategy "deployment-strategy" is unchanged: version 1\n',
    );
    expect((await careen(['strategy', 'list'])).stdout).toMatch(/deployment-strategy\s+1\s+5\s+3\s+/);
    const shown = await careen(['strategy', 'show', 'deployment-strategy']);
    expect(shown.stdout).toMatch(/control-nodes\s+yes\s+ntp-node\s+1\s+percent_successful_nodes 90/);
    const plan = await careen(['strategy', 'plan', 'deployment-strategy']);
    expect(plan.stdout).toMatch(/control-nodes \*\s+3\s+3\s+sim-group-2\s+sim-0002, sim-0005, sim-0008/);
    expect(plan.stdout).not.toContain('warning');

    const started = await careen([
      'rollout',
      'start',
      'deployment-strategy',
      '--agent-version',
      '2.0.0',
      '-o',
      'json',
    ]);
    expect(started.code).toBe(0);
    const id = JSON.parse(started.stdout).id as string;
    const watched = await careen(['rollout', 'watch', id, '--interval', '0.2']);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain(`rollout ${id} of deployment-strategy v1 to 2.0.0: completed`);
    expect(watched.stdout).toMatch(/ntp-node \*\s+\[#{20}\]\s+1\/1\s+succeeded/);
    expect((await careen(['rollout', 'list'])).stdout).toMatch(
      new RegExp(`${id}\\s+deployment-strategy v1\\s+2\\.0\\.0\\s+completed\\s+9/9`),
    );
  });

  it('exits 1 from watching a rollout that fails, with the reason and the failed node', async () => {
    await hub.publishPackage('3.0.0');
    hub.failing.set(ROLES.ntp[0]!, new Set(['3.0.0']));
    const started = await careen([
      'rollout',
      'start',
      'deployment-strategy',
      '--agent-version',
      '3.0.0',
      '-o',
      'json',
    ]);
    const id = JSON.parse(started.stdout).id as string;
    const watched = await careen(['rollout', 'watch', id, '--interval', '0.2']);
    expect(watched.code).toBe(1);
    expect(watched.stderr).toContain(
      `rollout ${id} failed: critical group(s) failed: control-nodes, ntp-node`,
    );
    const shown = await careen(['rollout', 'show', id]);
    expect(shown.stdout).toMatch(/failed nodes:\n.*NODE.*\n\s*sim-0001\s+ntp-node\s+rolled-back: /);
    expect((await careen(['rollout', 'pause', id])).stderr).toContain(
      `rollout ${id} is failed: cannot pause it`,
    );
  });

  it('upgrades one node and lists its history, and refuses a downgrade with its reason', async () => {
    const downgrade = await careen(['upgrade', 'node', ROLES.monitoring[0]!, '--agent-version', '2.0.0']);
    expect([downgrade.code, downgrade.stderr]).toEqual([
      1,
      expect.stringContaining('node "sim-0009" runs agent 3.0.0: 2.0.0 would be a downgrade'),
    ]);
    await hub.publishPackage('4.0.0');
    const asked = await careen(['upgrade', 'node', ROLES.monitoring[0]!, '--agent-version', '4.0.0']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/^upgrade [0-9a-f-]+: node sim-0009 from 3\.0\.0 to 4\.0\.0 \(pending\)\n$/);
    const refused = await careen(['upgrade', 'node', ROLES.monitoring[0]!, '--agent-version', '4.0.0']);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      expect.stringContaining('node "sim-0009" is in upgrade'),
    ]);
    const history = await careen(['upgrade', 'history', '--node', ROLES.monitoring[0]!]);
    expect(history.stdout).toMatch(/^NODE\s+FROM\s+TO\s+STATE/);
    expect(history.stdout).toMatch(/sim-0009\s+3\.0\.0\s+4\.0\.0\s+\w+/);
  });

  it('rolls a strategy and a node back to older versions with --allow-downgrade, refused without it', async () => {
    const node = ROLES.monitoring[0]!;
    // The 4.0.0 upgrade of the test before holds the node until it ends.
    await eventually(
      async () =>
        expect((await careen(['upgrade', 'history', '--node', node, '--state', 'success'])).stdout).toMatch(
          /sim-0009\s+3\.0\.0\s+4\.0\.0\s+success/,
        ),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const rollout = ['rollout', 'start', 'deployment-strategy', '--agent-version', '2.0.0'];
    const refused = await careen(rollout);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      expect.stringContaining(
        '2.0.0 is below the agent version 1 node(s) of the rollout run: node "sim-0009" runs 4.0.0',
      ),
    ]);

    const started = await careen([...rollout, '--allow-downgrade']);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(
      /^started rollout ([0-9a-f-]+) of deployment-strategy v1 to 2\.0\.0 over 9 node\(s\), taking any above it down\n/,
    );
    const id = /^started rollout ([0-9a-f-]+)/.exec(started.stdout)![1]!;
    const watched = await careen(['rollout', 'watch', id, '--interval', '0.2']);
    expect([watched.code, watched.stdout]).toEqual([
      0,
      expect.stringContaining(`rollout ${id} of deployment-strategy v1 to 2.0.0: completed`),
    ]);

    const back = await careen(['upgrade', 'node', node, '--agent-version', '1.0.0', '--allow-downgrade']);
    expect([back.code, back.stdout]).toEqual([
      0,
      expect.stringMatching(/^rollback [0-9a-f-]+: node sim-0009 from 2\.0\.0 to 1\.0\.0 \(pending\)\n$/),
    ]);
    await eventually(
      async () =>
        expect((await careen(['upgrade', 'history', '--node', node])).stdout).toMatch(
          /sim-0009\s+2\.0\.0\s+1\.0\.0\s+success \(rollback\)/,
        ),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const shown = await careen(['node', 'show', node, '-o', 'json']);
    expect(JSON.parse(shown.stdout).status.agentVersion.package).toBe('1.0.0');
  });
});
