import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cli-errors';
import { ConfigStore } from './config-store';

describe('config store', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'careen-config-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads an empty config when there is no file yet', async () => {
    await expect(new ConfigStore(join(dir, 'missing')).load()).resolves.toEqual({});
  });

  it('creates its directory and writes a file only its owner can read', async () => {
    const store = new ConfigStore(join(dir, 'nested', 'careen'));
    await store.save({
      exchangeUrl: 'http://localhost:8080',
      org: 'acme',
      username: 'ada',
      accessToken: 't',
      expiresAt: '2030-01-01T00:00:00Z',
    });

    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    await expect(store.load()).resolves.toEqual({
      exchangeUrl: 'http://localhost:8080',
      org: 'acme',
      username: 'ada',
      accessToken: 't',
      expiresAt: '2030-01-01T00:00:00Z',
    });
  });

  it('replaces the file whole and leaves no temporary file behind', async () => {
    const store = new ConfigStore(dir);
    await store.save({ org: 'acme', accessToken: 'first' });
    await store.save({ org: 'acme' });

    expect(await readdir(dir)).toEqual(['config.json']);
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({ org: 'acme' });
  });

  it('tightens the mode of a file that was readable by others', async () => {
    const store = new ConfigStore(dir);
    await writeFile(store.path, '{}', { mode: 0o644 });
    await store.save({ accessToken: 'secret' });
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
  });

  it('persists only the known fields', async () => {
    const store = new ConfigStore(dir);
    await store.save({ org: 'acme', password: 'never' } as never);
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({ org: 'acme' });
  });

  it('names the file and the way out when it is damaged', async () => {
    const store = new ConfigStore(dir);
    await writeFile(store.path, '{ not json');
    await expect(store.load()).rejects.toThrow(CliError);
    await expect(store.load()).rejects.toThrow(
      `${store.path} is damaged (not valid JSON); delete it and run "careen login"`,
    );

    await writeFile(store.path, JSON.stringify({ accessToken: 42 }));
    await expect(store.load()).rejects.toThrow('accessToken is not a string');
  });
});
