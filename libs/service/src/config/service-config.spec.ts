import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceConfig } from './service-config';
import { loadConfig } from './load-config';

describe('ServiceConfig', () => {
  const base = { CAREEN_DATABASE_URL: 'postgres://x@y/z', CAREEN_NATS_URL: 'nats://n:4222' };

  it('keeps 10 Postgres connections unless CAREEN_DATABASE_POOL_SIZE says otherwise', () => {
    expect(loadConfig(ServiceConfig, base).CAREEN_DATABASE_POOL_SIZE).toBe(10);
    expect(
      loadConfig(ServiceConfig, { ...base, CAREEN_DATABASE_POOL_SIZE: '40' }).CAREEN_DATABASE_POOL_SIZE,
    ).toBe(40);
  });

  it.each(['0', '501', 'many', '2.5'])('stops the service naming CAREEN_DATABASE_POOL_SIZE=%s', (value) => {
    expect(() => loadConfig(ServiceConfig, { ...base, CAREEN_DATABASE_POOL_SIZE: value })).toThrow(
      /CAREEN_DATABASE_POOL_SIZE/,
    );
  });

  it('reads a value from the file <name>_FILE names (a mounted secret), unless the value is given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'careen-config-'));
    try {
      const file = join(dir, 'database-url');
      writeFileSync(file, 'postgres://from@file/db\n');
      const { CAREEN_NATS_URL } = base;
      expect(
        loadConfig(ServiceConfig, { CAREEN_NATS_URL, CAREEN_DATABASE_URL_FILE: file }).CAREEN_DATABASE_URL,
      ).toBe('postgres://from@file/db');
      expect(loadConfig(ServiceConfig, { ...base, CAREEN_DATABASE_URL_FILE: file }).CAREEN_DATABASE_URL).toBe(
        base.CAREEN_DATABASE_URL,
      );
      expect(() =>
        loadConfig(ServiceConfig, { CAREEN_NATS_URL, CAREEN_DATABASE_URL_FILE: join(dir, 'missing') }),
      ).toThrow(/CAREEN_DATABASE_URL_FILE=.*ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
