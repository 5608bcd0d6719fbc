/**
 * Postgres restarted (fast shutdown) in the middle of writes: while it is away the exchange
 * answers 503 with Retry-After (never a 500) and says so on /readyz; once it is back, writes
 * succeed again on the same pool, and every write that was answered 201 is there, its change
 * published exactly once (the outbox lives through the restart).
 */
import { connectBus, type BusConnection } from '@careen/bus';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService, type ServiceConfig } from '@careen/service';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { changesPerOrg } from './support/change-stream';
import { RestartablePostgres } from './support/restartable-postgres';

const ROOT_PASSWORD = 'restart-root-password';
const ROOT = basic('root', 'root', ROOT_PASSWORD);

jest.setTimeout(120_000);

describe('Postgres restarted in the middle of writes', () => {
  const infra = useTestInfra();
  const postgres = new RestartablePostgres();
  let exchange: InProcessService<ServiceConfig>;
  let reader: BusConnection;

  beforeAll(async () => {
    await postgres.start();
    exchange = await startServiceInProcess(
      exchangeService,
      { databaseUrl: postgres.url, natsUrl: infra.natsUrl },
      { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD },
    );
    reader = await connectBus({ url: infra.natsUrl, name: 'restart-reader' });
  });

  afterAll(async () => {
    await reader?.close();
    await exchange?.close();
    await postgres.remove();
  });

  it('answers 503 while it is away, and loses nothing it answered 201 for', async () => {
    const answers: { id: string; status: number; retryAfter: string | null }[] = [];
    let writing = true;
    let next = 0;
    /** Writes one org after another, recording each answer, until told to stop. */
    const writer = (async () => {
      while (writing) {
        const id = `restart-${++next}`;
        const answer = await http(exchange.url, 'POST', '/v1/orgs', { auth: ROOT, body: { id } });
        answers.push({ id, status: answer.status, retryAfter: answer.headers.get('retry-after') });
      }
    })();
    const answered = (status: number) => answers.filter((answer) => answer.status === status).length;
    try {
      await eventually(() => expect(answered(201)).toBeGreaterThanOrEqual(5));
      await postgres.stop();
      await eventually(() => expect(answered(503)).toBeGreaterThanOrEqual(3));
      expect((await http(exchange.url, 'GET', '/readyz')).status).toBe(503);

      await postgres.start();
      const before = answered(201);
      await eventually(() => expect(answered(201)).toBeGreaterThan(before + 3), { timeoutMs: 30_000 });
    } finally {
      writing = false;
      await writer;
    }

    expect(answers.filter((answer) => ![201, 503].includes(answer.status))).toEqual([]);
    expect(
      answers.filter((answer) => answer.status === 503).every((answer) => answer.retryAfter === '1'),
    ).toBe(true);
    const kept = answers.filter((answer) => answer.status === 201).map((answer) => answer.id);
    for (const id of kept)
      expect([id, (await http(exchange.url, 'GET', `/v1/orgs/${id}`, { auth: ROOT })).status]).toEqual([
        id,
        200,
      ]);
    await eventually(
      async () => {
        const published = await changesPerOrg(reader, kept);
        expect(kept.filter((_, index) => published[index] !== 1)).toEqual([]);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });
});
