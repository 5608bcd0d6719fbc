/** Real Postgres and NATS for one test file: `const infra = useTestInfra();` at the top of a describe. */
import { setTimeout as delay } from 'node:timers/promises';
import { createTestDatabase, type TestDatabase } from './test-database';
import { startTestNats, type TestNats } from './test-nats';

export interface TestInfra {
  readonly databaseUrl: string;
  readonly natsUrl: string;
  /** Replicas for the streams services create: 3 on a cluster (CAREEN_NATS_CLUSTER=1), else 1. */
  readonly natsStreamReplicas: number;
  readonly database: TestDatabase;
  readonly nats: TestNats;
  /** Services started on this infra are closed before it goes away (see afterAll below). */
  track(close: () => Promise<void>): void;
}

const CLOSE_GRACE_MS = 5_000;

/** `natsAuth`: a NATS server that enforces JWT authorization (services connect with `nats.auth.credsFile`). */
export function useTestInfra(options: { natsAuth?: boolean } = {}): TestInfra {
  let database: TestDatabase | undefined;
  let nats: TestNats | undefined;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    [database, nats] = await Promise.all([createTestDatabase(), startTestNats({ auth: options.natsAuth })]);
  });
  // Jest runs afterAll hooks in the order they were declared, so this one runs before the test
  // file's own: it closes the services the file started first (their close is idempotent), so
  // that none of them loses its database and NATS server while still running, then drops both.
  // A close that waits on a client the file stops only later (an agent's long poll) is given
  // CLOSE_GRACE_MS; the file's own afterAll then finishes it.
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) {
      const grace = new AbortController();
      await Promise.race([
        close().catch(() => undefined),
        delay(CLOSE_GRACE_MS, undefined, { signal: grace.signal }).catch(() => undefined),
      ]);
      grace.abort();
    }
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
    get natsStreamReplicas() {
      return ready(nats, 'the test NATS server').replicas;
    },
    get database() {
      return ready(database, 'the test database');
    },
    get nats() {
      return ready(nats, 'the test NATS server');
    },
    track(close) {
      closers.push(close);
    },
  };
}
