/**
 * `npm test`: typecheck (the services' and the web console's) beside the format check and lint,
 * then jest, then the bus and a few end-to-end files again on three-node JetStream clusters, then the web
 * console's browser tests, then the contract check of every answer the services gave in those
 * runs against their OpenAPI documents, stopping at the first failing step.
 * Arguments after `--` go to jest instead (`npm test -- libs/bus`), and skip the cluster run
 * and the contract check.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './child-command';
import { LauncherError } from './launcher-error';
import { ensureCommand } from './debian-package';
import { ensureNatsServer } from './nats-binary';
import { ensurePrometheus, ensurePromtool } from './promtool';
import { REPO_ROOT } from './repo-root';
import { stateFolder } from './state-folder';

const KUBECTL_INSTALL_HINT =
  "The tests need kubectl (1.20 or newer) to render the Kubernetes manifests: install Debian's kubernetes-client or kubectl from kubernetes.io.";

const CHROMIUM_INSTALL_HINT =
  "The web console's browser tests need Chromium: install Debian's chromium package, or set CAREEN_CHROMIUM_BIN to a Chromium or Chrome binary.";

const COMPOSE_INSTALL_HINT =
  "The tests need Docker Compose to check docker-compose.yml: install Debian's docker-compose or Docker's compose plugin.";

/** Whether `docker compose` (Docker's plugin) runs here. */
function composePluginWorks(): boolean {
  return spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;
}

interface Step {
  name: string;
  bin: string;
  args: string[];
  env?: Record<string, string>;
}

/** Where the harness keeps samples of what the services answered (test-e2e/contract reads them). */
const ANSWERS = join(REPO_ROOT, '.careen', 'answers');

/** What runs again on three-node JetStream clusters: the bus, the cluster, and services end to end, replicated. */
const CLUSTER_SUITE = [
  'libs/bus',
  'libs/devstack',
  'test-e2e/hub-services.e2e-spec.ts',
  'test-e2e/maintenance-session.e2e-spec.ts',
  'test-e2e/replicas.e2e-spec.ts',
  'test-e2e/faults.e2e-spec.ts',
  'test-e2e/service-account-bus.e2e-spec.ts',
];

export async function main(argv: string[]): Promise<number> {
  const { bin } = stateFolder(process.env);
  let natsServer: string;
  let promtool: string;
  let prometheus: string;
  let chromium: string;
  try {
    natsServer = ensureNatsServer(bin, process.env);
    promtool = ensurePromtool(bin, process.env);
    prometheus = ensurePrometheus(bin, process.env);
    // The deployment-form tests render the Kubernetes manifests with `kubectl kustomize` and
    // check the compose file with Compose (docker-compose, or Docker's compose plugin).
    ensureCommand('kubectl', 'kubernetes-client', KUBECTL_INSTALL_HINT, process.env);
    // The console's end-to-end tests drive a real Chromium with Playwright (no browser download).
    chromium =
      process.env.CAREEN_CHROMIUM_BIN ||
      ensureCommand('chromium', 'chromium', CHROMIUM_INSTALL_HINT, process.env);
    if (!composePluginWorks())
      ensureCommand('docker-compose', 'docker-compose', COMPOSE_INSTALL_HINT, process.env);
  } catch (error) {
    if (!(error instanceof LauncherError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  const env = {
    ...process.env,
    CAREEN_NATS_SERVER_BIN: natsServer,
    CAREEN_PROMTOOL_BIN: promtool,
    CAREEN_PROMETHEUS_BIN: prometheus,
    CAREEN_CHROMIUM_BIN: chromium,
    NX_DAEMON: 'false',
  };
  const ci = process.env.CI === 'true' || process.env.CI === '1';
  // The whole run keeps samples of the services' answers for the contract check at its end.
  const recording = argv.length === 0 ? { CAREEN_RECORD_ANSWERS: ANSWERS } : undefined;
  // Each stage's lanes run at once (the machine has two cores), each lane's steps in order: the
  // static checks in two lanes, then jest (two files at a time), then the cluster run beside the
  // browser tests, then the contract check of what they all answered.
  const stages: Step[][][] = [
    [
      [
        { name: 'typecheck', bin: 'tsc', args: ['-p', 'tsconfig.json', '--noEmit'] },
        {
          name: 'typecheck the web console',
          bin: 'tsc',
          args: ['-p', 'apps/console/web/tsconfig.json', '--noEmit'],
        },
      ],
      [
        { name: 'format', bin: 'prettier', args: ['--check', '.', '--log-level', 'warn'] },
        // The module-boundaries lint rule reads Nx's project graph and is silently skipped without one.
        { name: 'project graph', bin: 'nx', args: ['show', 'projects'] },
        { name: 'lint', bin: 'eslint', args: ['.'] },
      ],
    ],
    [[{ name: 'tests', bin: 'jest', args: [...(ci ? ['--ci'] : []), ...argv], env: recording }]],
  ];
  // The whole run (no jest arguments) also runs a part of the suite on clusters.
  if (argv.length === 0) {
    rmSync(ANSWERS, { recursive: true, force: true });
    stages.push(
      [
        [
          {
            name: 'tests on a three-node JetStream cluster',
            bin: 'jest',
            args: [...(ci ? ['--ci'] : []), '--maxWorkers=1', ...CLUSTER_SUITE],
            env: { CAREEN_NATS_CLUSTER: '1', ...recording },
          },
        ],
        // The console's browser tests run npm start and Chromium, beside the cluster run, each
        // one file at a time.
        [
          {
            name: 'the web console in Chromium, against npm start',
            bin: 'jest',
            args: [...(ci ? ['--ci'] : []), '--maxWorkers=1', '--testMatch', '**/test-e2e/*.browser-spec.ts'],
          },
        ],
      ],
      [
        [
          {
            name: 'contract: the answers seen, against the OpenAPI documents',
            bin: 'jest',
            args: [...(ci ? ['--ci'] : []), '--testMatch', '**/test-e2e/contract/*.contract-spec.ts'],
          },
        ],
      ],
    );
  }
  for (const lanes of stages) {
    const codes = await Promise.all(lanes.map((lane) => runLane(lane, env, lanes.length > 1)));
    const failed = codes.find((code) => code !== 0);
    if (failed !== undefined) return failed;
  }
  process.stdout.write('\n✔ typecheck, format, lint and tests passed.\n');
  return 0;
}

/**
 * Runs a lane's steps in order, stopping at the first that fails. A lane beside others keeps
 * what its steps print and shows it once each step ends, so that lanes do not interleave.
 */
async function runLane(lane: Step[], env: NodeJS.ProcessEnv, besideOthers: boolean): Promise<number> {
  for (const step of lane) {
    const shownEnv = Object.entries(step.env ?? {}).map(([name, value]) => `${name}=${value} `);
    const heading = `\n▶ ${step.name}: ${shownEnv.join('')}${step.bin} ${step.args.join(' ')}\n`;
    const printed: Buffer[] = [];
    if (!besideOthers) process.stdout.write(heading);
    const started = Date.now();
    const code = await runCommand(join(REPO_ROOT, 'node_modules', '.bin', step.bin), step.args, {
      cwd: REPO_ROOT,
      env: { ...env, ...step.env },
      output: besideOthers ? (chunk) => printed.push(chunk) : undefined,
    });
    if (besideOthers) process.stdout.write(`${heading}${Buffer.concat(printed).toString()}`);
    process.stdout.write(`  (${step.name}: ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    if (code !== 0) {
      process.stderr.write(`\n✖ ${step.name} failed (${step.bin} exited with code ${code}).\n`);
      return code;
    }
  }
  return 0;
}
