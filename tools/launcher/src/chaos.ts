/**
 * `npm run chaos -- [--minutes N] [--seed S]`: the chaos run (test-e2e/chaos) for N minutes of
 * faults (10 by default), from seed S (a random one, printed, by default). `npm test` runs the
 * same test for a minute.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { runCommand } from './child-command';
import { LauncherError } from './launcher-error';
import { ensureNatsServer } from './nats-binary';
import { REPO_ROOT } from './repo-root';
import { stateFolder } from './state-folder';

const USAGE = 'usage: npm run chaos -- [--minutes N] [--seed S]\n';

export async function main(argv: string[]): Promise<number> {
  let minutes: number;
  let seed: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { minutes: { type: 'string', default: '10' }, seed: { type: 'string' } },
      strict: true,
    });
    minutes = Number(values.minutes);
    seed = values.seed;
    if (!Number.isFinite(minutes) || minutes <= 0)
      throw new Error(`--minutes must be a positive number, not "${values.minutes}"`);
    if (seed !== undefined && !/^\d+$/.test(seed))
      throw new Error(`--seed must be a whole number, not "${seed}"`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  let natsServer: string;
  try {
    natsServer = ensureNatsServer(stateFolder(process.env).bin, process.env);
  } catch (error) {
    if (!(error instanceof LauncherError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  return runCommand(
    join(REPO_ROOT, 'node_modules', '.bin', 'jest'),
    ['--runTestsByPath', 'test-e2e/chaos/chaos.e2e-spec.ts'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        CAREEN_NATS_SERVER_BIN: natsServer,
        CAREEN_CHAOS_SECONDS: String(Math.round(minutes * 60)),
        ...(seed ? { CAREEN_CHAOS_SEED: seed } : {}),
      },
    },
  );
}
