/**
 * `npm start`: the whole hub on this machine, on an embedded Postgres and a JetStream
 * nats-server kept under the state folder. Runs until stopped or until a service dies.
 */
import { loadOrCreateCredentials } from './credentials';
import { appInstalled } from './hub-services';
import { LauncherError } from './launcher-error';
import { LocalPlatform, type ProcessEnd } from './local-platform';
import { leftoverPostgres } from './local-postgres';
import { logTail } from './log-files';
import { ensureNatsServer } from './nats-binary';
import { assertPortsFree } from './ports';
import { describeExit } from './service-process';
import { PG_PORT_ENV, portClaims, readStartConfig, START_USAGE, type StartConfig } from './start-config';
import { prepareStateFolder, resetStateFolder } from './state-folder';
import { listenForStop, type StopRequest } from './stop-request';
import { readySummary } from './summary';

const print = (line: string) => process.stdout.write(`${line}\n`);
const printError = (line: string) => process.stderr.write(`${line}\n`);

export async function main(argv: string[]): Promise<number> {
  let config: StartConfig;
  try {
    config = readStartConfig(argv, process.env);
  } catch (error) {
    return fail(error);
  }
  if (config.help) {
    print(START_USAGE);
    return 0;
  }
  const stop = listenForStop(print);
  const platform = new LocalPlatform(config, print);
  keepRunningWithoutConsole();
  // A bug here must not leave services, NATS and Postgres running without their supervisor.
  process.once('uncaughtException', (error) => {
    printError(`\nThe launcher failed: ${error.stack ?? String(error)}`);
    void platform.stop().finally(() => process.exit(1));
  });
  try {
    await run(config, platform, stop);
    const died = stop.signal.aborted ? undefined : await untilStopOrExit(platform, stop);
    if (died) {
      printError(
        `\n${died.name} ${describeExit(died.exit)} unexpectedly. The end of ${died.logFile}:\n${logTail(died.logFile)}\n` +
          'Stopping everything.',
      );
      await platform.stop();
      return 1;
    }
  } catch (error) {
    if (!stop.signal.aborted) {
      const code = fail(error);
      await platform.stop();
      return code;
    }
  }
  await platform.stop();
  print('Stopped.');
  return 0;
}

async function run(config: StartConfig, platform: LocalPlatform, stop: StopRequest): Promise<void> {
  await assertPortsFree(portClaims(config), { [PG_PORT_ENV]: leftoverPostgres(config.state.postgres) });
  if (config.reset) {
    const removed = resetStateFolder(config.state);
    print(
      removed.length > 0
        ? `--reset: deleted ${removed.join(', ')}`
        : `--reset: nothing to delete in ${config.state.root}`,
    );
  }
  prepareStateFolder(config.state);
  const natsBinary = ensureNatsServer(config.state.bin, process.env);
  const credentials = loadOrCreateCredentials(config.state.credentials, process.env);
  // What needs nothing of the rest starts beside it: the console's build and NATS beside
  // Postgres, and the demo fleet's code loads while the exchange starts.
  platform.buildConsole();
  await allSettledOrFirstError([
    platform.startPostgres(credentials.postgresPassword),
    platform.startNats(natsBinary),
  ]);
  if (stop.signal.aborted) return;
  const services = platform.startServices(credentials, stop.signal);
  platform.loadDemoFleet();
  await services;
  if (stop.signal.aborted) return;
  await platform.startDemoFleet(credentials, stop.signal);
  if (stop.signal.aborted) return;
  await platform.startConsole();
  if (stop.signal.aborted) return;
  print(readySummary(config, platform, credentials, appInstalled('cli')));
}

/**
 * Waits for every start, then fails with the first failure: a stop after a failure must find
 * each of them started or given up, none still starting unsupervised.
 */
async function allSettledOrFirstError(starts: Promise<void>[]): Promise<void> {
  const outcomes = await Promise.allSettled(starts);
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
}

/** Settles with the process that ended on its own, or with undefined when a stop was requested. */
async function untilStopOrExit(platform: LocalPlatform, stop: StopRequest): Promise<ProcessEnd | undefined> {
  const died = await Promise.race([stop.requested.then(() => undefined), platform.firstExit()]);
  return stop.signal.aborted ? undefined : died;
}

/** A closed terminal must not kill the launcher halfway through stopping everything. */
function keepRunningWithoutConsole(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

function fail(error: unknown): number {
  printError(
    error instanceof LauncherError ? `\n${error.message}` : `\n${(error as Error).stack ?? String(error)}`,
  );
  return 1;
}
