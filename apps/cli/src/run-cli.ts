/**
 * One run of `careen`: parses the arguments, runs the command and answers its exit code.
 * It never exits the process and never prints a stack for an expected failure:
 * 0 success, 1 failure (user mistake, refusal by the exchange, exchange unreachable),
 * 2 usage error (unknown command or option, missing argument), 3 a watched rollout waits for an
 * operator, 130 cancelled at a prompt, 141 stdout closed by its reader.
 */
import { Command, CommanderError, Option } from 'commander';
import { version } from '../package.json';
import { CliError } from './cli-errors';
import { readCliEnv } from './cli-env';
import { type CliIo } from './cli-io';
import { registerAgentPackageCommands } from './commands/agentpackage.commands';
import { registerAuthCommands } from './commands/auth.commands';
import { type CliServices } from './commands/command-context';
import { registerDeployCheckCommands } from './commands/deploycheck.commands';
import { registerDeployPolicyCommands, registerServiceCommands } from './commands/file-resource.commands';
import { registerDisruptionCommands } from './commands/disruption.commands';
import { registerHaGroupCommands } from './commands/hagroup.commands';
import { registerMaintenanceCommands } from './commands/maintenance.commands';
import { registerEventsCommand } from './commands/events.command';
import { registerSubscriptionCommands } from './commands/subscription.commands';
import { registerNmpCommands } from './commands/nmp.commands';
import { registerNodeCommands } from './commands/node.commands';
import { registerOrgCommands } from './commands/org.commands';
import { registerRolloutCommands } from './commands/rollout.commands';
import { registerStrategyCommands } from './commands/strategy.commands';
import { registerUpgradeCommands } from './commands/upgrade.commands';
import { registerAuditCommands } from './commands/audit.commands';
import { registerServiceAccountCommands } from './commands/service-account.commands';
import { registerSsoCommands } from './commands/sso.commands';
import { registerUserCommands } from './commands/user.commands';
import { ConfigStore } from './config/config-store';
import { OUTPUT_FORMATS } from './output/output';

export type { CliInput, CliIo, CliOutput } from './cli-io';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** 128 + SIGPIPE: what a shell reports for a command whose reader closed the pipe. */
export const EXIT_CLOSED_PIPE = 141;

export function buildProgram(services: CliServices): Command {
  const { io } = services;
  const program = new Command('careen')
    .description('Operate a Careen control plane')
    .version(version, '-V, --version')
    // Set before any subcommand exists: subcommands copy these settings when created.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(run "careen --help" for usage)')
    .configureHelp({ showGlobalOptions: true })
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .addOption(
      new Option(
        '--exchange <url>',
        'exchange URL (default: CAREEN_EXCHANGE_URL, else the one logged in to, else http://127.0.0.1:8080)',
      ),
    );

  registerAuthCommands(program, services);
  registerOrgCommands(program, services);
  registerUserCommands(program, services);
  registerServiceAccountCommands(program, services);
  registerSsoCommands(program, services);
  registerAuditCommands(program, services);
  registerNodeCommands(program, services);
  registerHaGroupCommands(program, services);
  registerServiceCommands(program, services);
  registerDeployPolicyCommands(program, services);
  registerDisruptionCommands(program, services);
  registerNmpCommands(program, services);
  registerAgentPackageCommands(program, services);
  registerDeployCheckCommands(program, services);
  registerMaintenanceCommands(program, services);
  registerStrategyCommands(program, services);
  registerRolloutCommands(program, services);
  registerUpgradeCommands(program, services);
  registerSubscriptionCommands(program, services);
  registerEventsCommand(program, services);
  return program;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const env = readCliEnv(io.env);
  const services: CliServices = {
    io,
    env,
    store: new ConfigStore(env.configDir),
    now: io.now ?? (() => new Date()),
  };
  try {
    await buildProgram(services).parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    return report(error, io, env.debug);
  }
}

function report(error: unknown, io: CliIo, debug: boolean): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (or the help, or the version).
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
      ? EXIT_OK
      : EXIT_USAGE;
  }
  if (error instanceof CliError) {
    io.stderr.write(`${error.lines().join('\n')}\n`);
    if (debug && error.stack) io.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`error: unexpected failure: ${message}\n`);
  if (debug) {
    io.stderr.write(`${error instanceof Error ? (error.stack ?? message) : message}\n`);
  } else {
    io.stderr.write('(set CAREEN_DEBUG=1 to see where it happened)\n');
  }
  return EXIT_FAILURE;
}
