/** `npm run bench -- <name> [args…]`: runs bench/<name>.bench.ts from its TypeScript source. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './child-command';
import { REPO_ROOT } from './repo-root';

const BENCH_DIR = join(REPO_ROOT, 'bench');
const SUFFIX = '.bench.ts';

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const available = availableBenchmarks();
  if (!name || !available.includes(name)) {
    if (name) process.stderr.write(`unknown benchmark "${name}".\n`);
    process.stderr.write('usage: npm run bench -- <name> [args…]\n');
    process.stderr.write(
      available.length > 0
        ? `benchmarks: ${available.join(', ')}\n`
        : 'no benchmarks yet (none in bench/).\n',
    );
    return 2;
  }
  const register = require.resolve('@swc-node/register', { paths: [REPO_ROOT] });
  return runCommand(process.execPath, ['-r', register, join(BENCH_DIR, `${name}${SUFFIX}`), ...args], {
    cwd: REPO_ROOT,
    env: process.env,
  });
}

function availableBenchmarks(): string[] {
  if (!existsSync(BENCH_DIR)) return [];
  return readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
}
