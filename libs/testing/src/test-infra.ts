/** Real Postgres and NATS for one test file: `const infra = useTestInfra();` at the top of a describe. */
import { createTestDatabase, type TestDatabase } from './test-database';
import { startTestNats, type TestNats } from './test-nats';

export interface TestInfra {
  readonly databaseUrl: string;
  readonly natsUrl: string;
  readonly database: TestDatabase;
  readonly nats: TestNats;
}

export function useTestInfra(): TestInfra {
  let database: TestDatabase | undefined;
  let nats: TestNats | undefined;
  beforeAll(async () => {
    [database, nats] = await Promise.all([createTestDatabase(), startTestNats()]);
  });
  afterAll(async () => {
    await Promise.all([nats?.stop(), database?.drop()]);
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`${what} is only available inside tests (after beforeAll)`);
    return value;
  };
  return {
    get databaseUrl() {
      return ready(database, 'the test database').url;
    },
    get natsUrl() {
      return ready(nats, 'the test NATS server').url;
    },
    get database() {
      return ready(database, 'the test database');
    },
    get nats() {
      return ready(nats, 'the test NATS server');
    },
  };
}
