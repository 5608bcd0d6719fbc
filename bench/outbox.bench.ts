/**
 * `npm run bench -- outbox [changes] [writers]`: how long a committed change takes to reach
 * the bus through the outbox (commit → message received, p50/p99), and how many changes per
 * second it sustains, and Postgres's CPU per change (and how much of it the relay's own
 * connection took), next to the raw dual write (commit, then publish directly) in the same run.
 * A change committed that has not reached the bus 30 s after the last commit fails the run.
 */
import { connectBus, ensureStreams, EventPublisher, OutboxRelay } from '@careen/bus';
import { ExchangeChanged, STREAMS, type ChangePayload } from '@careen/contracts';
import {
  createServiceDataSource,
  OutboxWriter,
  outboxSchemaUp,
  runServiceMigrations,
} from '@careen/persistence';
import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { startBenchStack } from './support/bench-stack';
import { cpuSeconds } from './support/service-process';
import { printTable, summarize, timed } from './support/stats';

const CHANGES = Number(process.argv[2] ?? 5_000);
const WRITERS = Number(process.argv[3] ?? 8);
/** How long after the last commit every change must have reached the bus. */
const ARRIVAL_DEADLINE_MS = 30_000;

class BenchSchema1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('bench')) await runner.query(sql);
    await runner.query('CREATE TABLE bench.things (id text PRIMARY KEY, version int NOT NULL)');
  }
  async down(): Promise<void> {}
}

function change(id: string): ChangePayload {
  return {
    org: 'bench',
    resource: 'org',
    resourceId: id,
    operation: 'updated',
    changedAt: new Date().toISOString(),
  };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const postgresCpuMs = () => stack.cpuSeconds().postgres * 1000;
  const dataSource = createServiceDataSource({
    url: stack.databaseUrl,
    schema: 'bench',
    entities: [],
    migrations: [BenchSchema1700000000000],
    applicationName: 'bench',
    poolSize: WRITERS + 2,
  });
  await dataSource.initialize();
  await runServiceMigrations(dataSource);
  /** CPU of the Postgres backend serving the relay's connection, which lives from the relay's start. */
  const relayBackendCpuMs = async () => {
    const [backend] = await dataSource.query<{ pid: number }[]>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'bench-outbox-relay'",
    );
    return backend ? cpuSeconds(backend.pid) * 1000 : NaN;
  };
  const bus = await connectBus({ url: stack.natsUrl, name: 'bench' });
  await ensureStreams(bus.jsm, [STREAMS.changes]);
  const publisher = new EventPublisher(bus.js, 'careen/bench');
  const writer = new OutboxWriter('bench');
  const relay = new OutboxRelay({ databaseUrl: stack.databaseUrl, schema: 'bench', publisher });

  // First arrival times by resource id, from a plain subscription on the change subjects.
  const arrived = new Map<string, bigint>();
  let arrivals = 0;
  let allArrived: () => void = () => undefined;
  bus.nc.subscribe('careen.changes.bench.>', {
    callback: (_error, message) => {
      const id = message.subject.slice(message.subject.lastIndexOf('.') + 1);
      if (arrived.has(id)) return;
      arrived.set(id, process.hrtime.bigint());
      if (++arrivals === expected) allArrived();
    },
  });
  let expected = 0;
  const expectArrivals = (count: number) => {
    arrivals = 0;
    expected = count;
    return new Promise<void>((resolve) => (allArrived = resolve));
  };
  /**
   * Nothing lost: once all are committed, every change reaches the bus, or the run fails saying
   * how many did not.
   */
  const everyArrival = async (done: Promise<void>) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`${expected - arrivals} of ${expected} committed changes never reached the bus`)),
        ARRIVAL_DEADLINE_MS,
      );
    });
    try {
      await Promise.race([done, late]);
    } finally {
      clearTimeout(timer);
    }
  };

  /** WRITERS concurrent writers each committing one change per transaction; returns commit times. */
  async function write(prefix: string, count: number, afterCommit?: (id: string) => Promise<unknown>) {
    const committed = new Map<string, bigint>();
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < count) {
          const id = `${prefix}${next++}`;
          await dataSource.transaction(async (manager) => {
            await manager.query('INSERT INTO bench.things (id, version) VALUES ($1, 1)', [id]);
            if (!afterCommit) await writer.append(manager, ExchangeChanged, ['bench', 'org', id], change(id));
          });
          committed.set(id, process.hrtime.bigint());
          await afterCommit?.(id);
        }
      }),
    );
    return committed;
  }

  const latencies = (committed: Map<string, bigint>) =>
    summarize([...committed].map(([id, at]) => Number((arrived.get(id) ?? at) - at) / 1e6));

  try {
    // Baseline: commit, then publish straight to JetStream (no outbox: not crash-safe).
    let rawCommitted = new Map<string, bigint>();
    const rawDone = expectArrivals(CHANGES);
    const rawPostgres = postgresCpuMs();
    const rawMs = await timed(async () => {
      rawCommitted = await write('raw', CHANGES, (id) =>
        publisher.publish(ExchangeChanged, ['bench', 'org', id], change(id)),
      );
      await everyArrival(rawDone);
    });
    const rawPostgresMs = postgresCpuMs() - rawPostgres;

    relay.start();
    let outboxCommitted = new Map<string, bigint>();
    const outboxDone = expectArrivals(CHANGES);
    const outboxPostgres = postgresCpuMs();
    const outboxMs = await timed(async () => {
      outboxCommitted = await write('box', CHANGES);
      await everyArrival(outboxDone);
    });
    const outboxPostgresMs = postgresCpuMs() - outboxPostgres;
    const relayPostgresMs = await relayBackendCpuMs();

    const raw = latencies(rawCommitted);
    const outbox = latencies(outboxCommitted);
    printTable(`outbox: ${CHANGES} changes, ${WRITERS} concurrent writers, one transaction per change`, [
      {
        path: 'raw dual write',
        'changes/s': (CHANGES / rawMs) * 1000,
        'commit→bus p50 ms': raw.p50,
        'p99 ms': raw.p99,
        'max ms': raw.max,
        'Postgres CPU ms/change': rawPostgresMs / CHANGES,
      },
      {
        path: 'outbox + relay',
        'changes/s': (CHANGES / outboxMs) * 1000,
        'commit→bus p50 ms': outbox.p50,
        'p99 ms': outbox.p99,
        'max ms': outbox.max,
        'Postgres CPU ms/change': outboxPostgresMs / CHANGES,
        "relay's share": relayPostgresMs / outboxPostgresMs,
      },
      {
        path: 'ratio to raw',
        'changes/s': rawMs / outboxMs,
        'commit→bus p50 ms': outbox.p50 / raw.p50,
        'p99 ms': outbox.p99 / raw.p99,
        'max ms': outbox.max / raw.max,
        'Postgres CPU ms/change': outboxPostgresMs / rawPostgresMs,
      },
    ]);
  } finally {
    await relay.stop();
    await bus.close();
    await dataSource.destroy();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
