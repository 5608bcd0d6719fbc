/**
 * Every `careen` command run with a wrong password against the real services (exchange, agbot,
 * maintenance service, deployment orchestrator and notifier in this process): each fails with one `error:` line saying
 * the credentials were refused and a non-zero exit, and no stack frame ever reaches the
 * terminal. The commands are read from the CLI itself, so a command added later is tried too.
 * The same for the fleet simulator, `careen-agent simulate`, given a wrong admin password.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { buildProgram, runCli } from '@careen/cli/src/run-cli';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess } from '@careen/service';
import { basic, http, useTestInfra } from '@careen/testing';
import { type Command } from 'commander';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT_PASSWORD = 'root-password-1';
/** Commands that only work on local files or the stored login, and so need no credentials. */
const LOCAL = new Set(['logout', 'nmp new', 'agentpackage new', 'strategy validate']);
/** Commands that check their file before they call, and so are given a valid one. */
const STRATEGY_COMMANDS = new Set(['strategy validate', 'strategy publish']);
/** Values for the options a command requires. */
const REQUIRED_OPTIONS: Record<string, string> = {
  '--role': 'operator',
  '--members': 'n1,n2',
  '--package-version': '1.0.0',
  '--overlap': '60',
  '--project': 'shop',
  '--map': 'ops=operator',
};
/** What a command needs besides its required arguments to get as far as calling a service. */
const MORE_ARGS: Record<string, string[]> = {
  deploycheck: ['--policy', 'thing-1'],
  'maintenance start': ['--hosts', 'h1'],
  'subscription add': ['--project', 'shop', '--url', 'http://127.0.0.1:9/hook'],
};
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

interface Leaf {
  path: string[];
  args: string[];
}

/** Every runnable command, with its required arguments and options filled in. */
function leaves(command: Command, path: string[], files: { json: string; strategy: string }): Leaf[] {
  if (command.commands.length > 0)
    return command.commands.flatMap((sub) => leaves(sub, [...path, sub.name()], files));
  const file = STRATEGY_COMMANDS.has(path.join(' ')) ? files.strategy : files.json;
  const args = command.registeredArguments
    .filter((argument) => argument.required)
    .map((argument) => (/file|dir/.test(argument.name()) ? file : 'thing-1'));
  for (const option of command.options.filter((each) => each.mandatory))
    args.push(option.long!, option.long === '--file' ? file : (REQUIRED_OPTIONS[option.long!] ?? 'x'));
  // Past the confirmation, to the call.
  if (command.options.some((option) => option.long === '--yes')) args.push('--yes');
  return [{ path, args: [...args, ...(MORE_ARGS[path.join(' ')] ?? [])] }];
}

describe('careen with a wrong password', () => {
  const infra = useTestInfra();
  let env: Record<string, string>;
  let workDir: string;
  let file: string;

  beforeAll(async () => {
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
    });
    const root = basic('root', 'root', ROOT_PASSWORD);
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
    const agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    const maintenance = await startServiceInProcess(maintenanceSessionService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_URL: agbot.url,
      CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    const orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    const notifier = await startServiceInProcess(notifierService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    workDir = await mkdtemp(join(tmpdir(), 'careen-cli-failures-'));
    file = join(workDir, 'input.json');
    await writeFile(file, '{}');
    await writeFile(
      join(workDir, 'strategy.yaml'),
      'name: edge\ngroups:\n  - {name: all, critical: true, depends_on: [], selectors: []}\n',
    );
    env = {
      HOME: workDir,
      CAREEN_CONFIG_DIR: join(workDir, 'config'),
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_URL: agbot.url,
      CAREEN_MAINTENANCE_URL: maintenance.url,
      CAREEN_NOTIFIER_URL: notifier.url,
      CAREEN_ORCHESTRATOR_URL: orchestrator.url,
      CAREEN_ORG: 'acme',
      CAREEN_USER: 'ada',
      CAREEN_PASSWORD: 'not-the-password',
      CAREEN_NEW_PASSWORD: 'a-new-password',
    };
  });

  afterAll(() => rm(workDir, { recursive: true, force: true }));

  it('stops the fleet simulator with one line naming the refused admin, and no stack', async () => {
    const { code, output } = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        resolve(__dirname, '..', 'apps', 'agent', 'src', 'main.ts'),
        'simulate',
        '--nodes',
        '2',
        '--org',
        'acme',
        '--exchange',
        env.CAREEN_EXCHANGE_URL!,
        '--admin',
        'ada:not-the-password',
      ],
      { env: { PATH: process.env.PATH, HOME: workDir } },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (failure: { code: number; stdout: string; stderr: string }) => ({
        code: failure.code,
        output: failure.stdout + failure.stderr,
      }),
    );
    expect({ code, output }).toEqual({
      code: 78,
      output:
        'careen-agent: invalid configuration: the exchange refused org admin "ada" of org "acme" (401): check --admin or CAREEN_SIMULATOR_ADMIN\n',
    });
  });

  it('fails every command that needs credentials with one line saying so, and never shows a stack', async () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
    const program = buildProgram({
      io,
      env: { configDir: join(workDir, 'unused'), debug: false },
      store: undefined as never,
      now: () => new Date(),
    });
    const commands = leaves(program, [], {
      json: join(workDir, 'input.json'),
      strategy: join(workDir, 'strategy.yaml'),
    });
    expect(commands.length).toBeGreaterThan(50);
    const outcomes = [];
    for (const { path, args } of commands) {
      let stdout = '';
      let stderr = '';
      const code = await runCli([...path, ...args], {
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env,
      });
      const name = path.join(' ');
      outcomes.push({
        command: name,
        failed: LOCAL.has(name) || code !== 0,
        // One line that says the credentials were refused.
        refused: LOCAL.has(name) || /^error: [^\n]*\(401\)[^\n]*\n$/.test(stderr) || stderr,
        stack: STACK_FRAME.test(stdout + stderr) ? stdout + stderr : undefined,
      });
    }
    expect(outcomes).toEqual(
      commands.map(({ path }) => ({
        command: path.join(' '),
        failed: true,
        refused: true,
        stack: undefined,
      })),
    );
  });
});
