/**
 * Faults between a service and NATS, injected by a TCP proxy on the way, one kind at a time:
 * a partition, connections reset mid-publish, and a slow link. Whatever the service committed
 * meanwhile reaches the stream once it can, and exactly once: nothing is lost and nothing is
 * doubled (the outbox republishes under the same message ids, which JetStream deduplicates).
 */
import { connectBus, type BusConnection } from '@careen/bus';
import { STREAMS } from '@careen/contracts';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService, type ServiceConfig } from '@careen/service';
import { basic, eventually, http, startTcpProxy, useTestInfra, type TcpProxy } from '@careen/testing';
import { changesPerOrg } from './support/change-stream';

const ROOT_PASSWORD = 'faults-root-password';
const ROOT = basic('root', 'root', ROOT_PASSWORD);

describe('faults between a service and NATS', () => {
  const infra = useTestInfra();
  let proxy: TcpProxy;
  let exchange: InProcessService<ServiceConfig>;
  let reader: BusConnection;

  beforeAll(async () => {
    // The first server of the test NATS (one, or a cluster's first member).
    const natsPort = Number(new URL(infra.natsUrl.split(',')[0]!).port);
    proxy = await startTcpProxy([natsPort]);
    exchange = await startServiceInProcess(
      exchangeService,
      {
        databaseUrl: infra.databaseUrl,
        natsUrl: `nats://127.0.0.1:${proxy.port}`,
        natsStreamReplicas: infra.natsStreamReplicas,
        track: (close) => infra.track(close),
      },
      { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD },
    );
    // The checks read the stream directly, not through the faulty link.
    reader = await connectBus({ url: infra.natsUrl, name: 'faults-reader' });
  });

  afterAll(async () => {
    await reader?.close();
    await exchange?.close();
    await proxy?.close();
  });

  /** Creates orgs `<prefix>-1` … `<prefix>-<count>` through the exchange's API. */
  async function createOrgs(prefix: string, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, index) => `${prefix}-${index + 1}`);
    for (const id of ids)
      expect((await http(exchange.url, 'POST', '/v1/orgs', { auth: ROOT, body: { id } })).status).toBe(201);
    return ids;
  }

  const changesOf = (ids: string[]) => changesPerOrg(reader, ids);

  const backlog = async () => {
    const metrics = await (await fetch(`${exchange.url}/metrics`)).text();
    return Number(/^careen_outbox_backlog\{[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
  };

  it('keeps what was committed during a partition, and publishes it once the partition heals', async () => {
    // What the exchange wrote as it started is out first.
    await eventually(async () => expect(await backlog()).toBe(0));
    proxy.partition();
    let ids: string[];
    try {
      ids = await createOrgs('partitioned', 5);
      // Committed, and held in the outbox (the metric is read at most once a second): none of
      // it is on the stream yet.
      await eventually(async () => expect(await backlog()).toBe(5), { intervalMs: 200 });
      expect(await changesOf(ids)).toEqual([0, 0, 0, 0, 0]);
    } finally {
      proxy.heal();
    }
    await eventually(async () => expect(await changesOf(ids)).toEqual([1, 1, 1, 1, 1]), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await eventually(async () => expect(await backlog()).toBe(0));
  });

  it('publishes each change exactly once when connections are reset in the middle of publishing', async () => {
    // A slow link keeps publishes and their acknowledgements on the way when the reset comes:
    // some reach the server and lose only their answer, some are lost outright.
    proxy.delay(100);
    let ids: string[];
    try {
      ids = await createOrgs('reset', 10);
      await eventually(async () => expect((await changesOf(ids)).some((count) => count > 0)).toBe(true));
      proxy.reset();
    } finally {
      proxy.delay(0);
    }
    // The relay republishes what it has no acknowledgement for, under the same message ids.
    await eventually(async () => expect(await changesOf(ids)).toEqual(ids.map(() => 1)), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await eventually(async () => expect(await backlog()).toBe(0), { intervalMs: 200 });
  });

  it('publishes over a slow link, in order, nothing lost', async () => {
    proxy.delay(200);
    try {
      const ids = await createOrgs('slow', 3);
      await eventually(async () => expect(await changesOf(ids)).toEqual([1, 1, 1]), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      // Published in commit order: the stream's sequence follows the org's number.
      const info = await reader.jsm.streams.info(STREAMS.changes.name);
      const last = await Promise.all(
        [2, 1, 0].map((back) =>
          reader.jsm.streams.getMessage(STREAMS.changes.name, { seq: info.state.last_seq - back }),
        ),
      );
      expect(last.map((message) => message?.subject.split('.')[2])).toEqual(ids);
    } finally {
      proxy.delay(0);
    }
  });
});
