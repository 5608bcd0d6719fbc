/**
 * Starts one ephemeral Postgres for the whole jest run, unless CAREEN_DATABASE_URL points at
 * one already. Test files then create a database each (see test-database.ts).
 */
import { startEmbeddedPostgres, type RunningPostgres } from '@careen/devstack';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ADMIN_URL_ENV } from '../test-env';

declare global {
  var __careenTestPostgres: RunningPostgres | undefined;
}

export default async function globalSetup(): Promise<void> {
  const given = process.env.CAREEN_DATABASE_URL;
  if (given) {
    process.env[TEST_ADMIN_URL_ENV] = given;
    return;
  }
  const parent = mkdtempSync(join(tmpdir(), 'careen-test-pg-'));
  // Under root, Postgres runs as its own user, which must be able to reach its data folder.
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');
  const postgres = await startEmbeddedPostgres({ dataDir, persistent: false, durable: false });
  globalThis.__careenTestPostgres = postgres;
  process.env[TEST_ADMIN_URL_ENV] = postgres.adminUrl;
}
