/**
 * `tarball`: each version is unpacked under `<installDir>/versions/<v>` (through a temporary
 * folder renamed into place, so a half-unpacked version never looks installed) and `current`
 * is a symlink to the active one, switched by renaming a new link over it, so a crash leaves
 * either the old link or the new one. Old versions stay until removed, for rollback.
 * A version is healthy when its `packages/health-check`, if it ships one, exits 0 in time.
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, chmod, constants, mkdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { type InstallStrategy } from './install-strategy';

export const HEALTH_CHECK = join('packages', 'health-check');

export class TarballInstallStrategy implements InstallStrategy {
  readonly name = 'tarball';

  constructor(
    private readonly installDir: string,
    private readonly healthTimeoutMs = 30_000,
  ) {}

  get currentLink(): string {
    return join(this.installDir, 'current');
  }

  versionDir(version: string): string {
    return join(this.installDir, 'versions', version);
  }

  async activeVersion(): Promise<string | null> {
    try {
      return basename(await readlink(this.currentLink));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async install(version: string, packageFile: string): Promise<void> {
    const target = this.versionDir(version);
    if (await exists(join(target, 'package.json'))) return;
    const staging = join(this.installDir, 'versions', `.${version}.unpacking`);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await unpack(packageFile, staging);
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  }

  async activate(version: string | null): Promise<void> {
    if (version === null) {
      await rm(this.currentLink, { force: true });
      return;
    }
    const next = `${this.currentLink}.next`;
    await rm(next, { force: true });
    await symlink(join('versions', version), next);
    await rename(next, this.currentLink);
  }

  async healthCheck(version: string): Promise<void> {
    const script = join(this.versionDir(version), HEALTH_CHECK);
    if (!(await exists(script))) return;
    await new Promise<void>((resolve, reject) =>
      execFile(
        script,
        [],
        { cwd: this.versionDir(version), timeout: this.healthTimeoutMs },
        (error, _stdout, stderr) =>
          error
            ? reject(new Error(`health check of ${version} failed: ${stderr.trim() || error.message}`))
            : resolve(),
      ),
    );
  }

  async remove(version: string): Promise<void> {
    if ((await this.activeVersion()) === version) return;
    await rm(this.versionDir(version), { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** Unpacks files and folders only, refusing any path that would land outside `into`. */
async function unpack(packageFile: string, into: string): Promise<void> {
  const entries = extract();
  const feeding = pipeline(createReadStream(packageFile), createGunzip(), entries);
  feeding.catch(() => undefined);
  for await (const entry of entries) {
    const { name, type, mode } = entry.header;
    const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
    if (name.startsWith('/') || segments.includes('..'))
      throw new Error(`unsafe entry "${name}" in the package`);
    const path = join(into, ...segments);
    if (type === 'directory') {
      await mkdir(path, { recursive: true });
      entry.resume();
    } else if (type === 'file' || type === 'contiguous-file') {
      await mkdir(dirname(path), { recursive: true });
      await pipeline(entry, createWriteStream(path));
      await chmod(path, (mode ?? 0o644) & 0o755);
    } else {
      throw new Error(`entry "${name}" is a ${type}; a package holds only files and folders`);
    }
  }
  await feeding;
}
