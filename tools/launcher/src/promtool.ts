/**
 * Provides promtool, with which the tests check the services' /metrics as Prometheus reads
 * them, and the Prometheus server the alert-gate tests start: an explicit one
 * (CAREEN_PROMTOOL_BIN, CAREEN_PROMETHEUS_BIN), one in the state folder's bin/, one on PATH,
 * or, as root on a Debian-like system, the ones inside the distribution's `prometheus` package,
 * unpacked into bin/ without installing the package (which would start a Prometheus server).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { findOnPath, isExecutable } from './debian-package';
import { LauncherError } from './launcher-error';

export const PROMTOOL_INSTALL_HINT =
  "The tests check the services' metrics with promtool and the alert gates against a Prometheus server: put " +
  "promtool and prometheus on PATH (Debian's package prometheus has both) or name them in CAREEN_PROMTOOL_BIN " +
  'and CAREEN_PROMETHEUS_BIN.';

export function ensurePromtool(binDir: string, env: NodeJS.ProcessEnv): string {
  return ensurePrometheusBinary('promtool', env.CAREEN_PROMTOOL_BIN, 'CAREEN_PROMTOOL_BIN', binDir, env);
}

export function ensurePrometheus(binDir: string, env: NodeJS.ProcessEnv): string {
  return ensurePrometheusBinary(
    'prometheus',
    env.CAREEN_PROMETHEUS_BIN,
    'CAREEN_PROMETHEUS_BIN',
    binDir,
    env,
  );
}

function ensurePrometheusBinary(
  name: 'promtool' | 'prometheus',
  explicit: string | undefined,
  setting: string,
  binDir: string,
  env: NodeJS.ProcessEnv,
): string {
  if (explicit) {
    if (!isExecutable(explicit)) throw new LauncherError(`${setting}=${explicit} is not an executable file.`);
    return explicit;
  }
  const find = () => findOnPath(name, [binDir, env.PATH].filter(Boolean).join(delimiter));
  const found = find();
  if (found) return found;
  unpackFromDebianPackage(binDir, env);
  const unpacked = find();
  if (!unpacked)
    throw new LauncherError(`the prometheus package holds no usr/bin/${name}. ${PROMTOOL_INSTALL_HINT}`);
  return unpacked;
}

function unpackFromDebianPackage(binDir: string, env: NodeJS.ProcessEnv): void {
  const aptGet = process.getuid?.() === 0 ? findOnPath('apt-get', env.PATH) : undefined;
  const dpkgDeb = findOnPath('dpkg-deb', env.PATH);
  if (!aptGet || !dpkgDeb) throw new LauncherError(PROMTOOL_INSTALL_HINT);
  process.stdout.write(
    'promtool or prometheus is missing; unpacking them from the Debian package "prometheus".\n',
  );
  const work = mkdtempSync(join(tmpdir(), 'careen-promtool-'));
  try {
    const run = (bin: string, args: string[]) =>
      spawnSync(bin, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    // Package lists may be missing on a fresh machine: refresh them once and ask again.
    let download = run(aptGet, ['download', 'prometheus']);
    if (download.status !== 0 && run(aptGet, ['update']).status === 0)
      download = run(aptGet, ['download', 'prometheus']);
    if (download.status !== 0)
      throw new LauncherError(
        `"apt-get download prometheus" failed: ${download.stderr.trim()}. ${PROMTOOL_INSTALL_HINT}`,
      );
    const archive = readdirSync(work).find((name) => name.endsWith('.deb'))!;
    const unpacked = run(dpkgDeb, ['-x', archive, 'unpacked']);
    if (unpacked.status !== 0)
      throw new LauncherError(
        `"dpkg-deb -x ${archive}" failed: ${unpacked.stderr.trim()}. ${PROMTOOL_INSTALL_HINT}`,
      );
    mkdirSync(binDir, { recursive: true });
    for (const name of ['promtool', 'prometheus']) {
      copyFileSync(join(work, 'unpacked', 'usr', 'bin', name), join(binDir, name));
      chmodSync(join(binDir, name), 0o755);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
