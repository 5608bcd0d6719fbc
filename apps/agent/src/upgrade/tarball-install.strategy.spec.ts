import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { buildPackage } from '../testing/agent-package.fixture';
import { TarballInstallStrategy } from './tarball-install.strategy';

describe('TarballInstallStrategy', () => {
  let dir: string;
  let strategy: TarballInstallStrategy;
  const packageFile = async (version: string, healthCheck?: string) => {
    const file = join(dir, `${version}.tar.gz`);
    await writeFile(file, await buildPackage({ version, healthCheck }));
    return file;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'careen-tarball-'));
    strategy = new TarballInstallStrategy(join(dir, 'install'), 5_000);
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('unpacks each version beside the others and switches the current link between them', async () => {
    expect(await strategy.activeVersion()).toBeNull();
    await strategy.install('1.0.0', await packageFile('1.0.0'));
    await strategy.activate('1.0.0');
    await strategy.install('2.0.0', await packageFile('2.0.0'));
    expect(await strategy.activeVersion()).toBe('1.0.0');
    await strategy.activate('2.0.0');

    expect(await strategy.activeVersion()).toBe('2.0.0');
    expect(await readlink(strategy.currentLink)).toBe(join('versions', '2.0.0'));
    expect(await readFile(join(strategy.currentLink, 'packages', 'careen-agent.txt'), 'utf8')).toBe(
      'careen agent 2.0.0\n',
    );
    expect(existsSync(join(strategy.versionDir('1.0.0'), 'package.json'))).toBe(true);
    expect(existsSync(`${strategy.currentLink}.next`)).toBe(false);
  });

  it('rolls back to the agent as first installed by removing the link', async () => {
    await strategy.install('1.0.0', await packageFile('1.0.0'));
    await strategy.activate('1.0.0');
    await strategy.activate(null);
    expect(await strategy.activeVersion()).toBeNull();
  });

  it('never removes the active version', async () => {
    await strategy.install('1.0.0', await packageFile('1.0.0'));
    await strategy.activate('1.0.0');
    await strategy.remove('1.0.0');
    expect(existsSync(strategy.versionDir('1.0.0'))).toBe(true);
  });

  it('runs the health check a version ships, and says why it failed', async () => {
    await strategy.install('1.0.0', await packageFile('1.0.0', 'exit 0'));
    await strategy.install('2.0.0', await packageFile('2.0.0', 'echo "no database" >&2; exit 3'));
    await expect(strategy.healthCheck('1.0.0')).resolves.toBeUndefined();
    await expect(strategy.healthCheck('2.0.0')).rejects.toThrow('no database');
  });

  it('refuses an entry that would land outside its folder and leaves nothing installed', async () => {
    const archive = pack();
    const chunks: Buffer[] = [];
    archive.on('data', (chunk) => chunks.push(chunk as Buffer));
    const ended = new Promise<void>((resolve) => archive.on('end', () => resolve()));
    archive.entry({ name: 'package.json' }, '{"version":"6.6.6"}');
    archive.entry({ name: 'packages/../../escape' }, 'x');
    archive.finalize();
    await ended;
    const file = join(dir, 'evil.tar.gz');
    await writeFile(file, gzipSync(Buffer.concat(chunks)));

    await expect(strategy.install('6.6.6', file)).rejects.toThrow('unsafe entry');
    expect(existsSync(strategy.versionDir('6.6.6'))).toBe(false);
    expect(existsSync(join(dir, 'escape'))).toBe(false);
  });
});
