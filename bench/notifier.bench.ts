/**
 * `npm run bench -- notifier [subscriptions] [events]`: 1,000 webhook subscriptions (one per
 * project) on local receivers and 10,000 maintenance events spread over their projects, through
 * the real notifier (a process of its own, as deployed) on Postgres and JetStream. Prints delivered events/s and
 * the end-to-end latency (publish → receiver) p50/p99, next to a raw loop of the same HTTP POSTs
 * in the same run; then the same again with 10 % of the receivers failing, to show that the
 * healthy receivers' latency stays where it was. Then the CPU each process spent per delivered
 * event (notifier, Postgres, nats-server, the bench's own publisher and receivers) and how busy
 * the machine was: the bench shares the machine with the hub it measures.
 */
import { connectBus, cloudEventHeaders } from '@careen/bus';
import { MaintenanceProjectEvent } from '@careen/contracts';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Agent, request } from 'node:http';
import { startBenchStack } from './support/bench-stack';
import { cpuSeconds, machineCpuSeconds, startServiceProcess } from './support/service-process';
import { printTable, summarize } from './support/stats';

const SUBSCRIPTIONS = Number(process.argv[2] ?? 1_000);
const EVENTS = Number(process.argv[3] ?? 10_000);
const RAW_CONCURRENCY = 64;
const PUBLISH_WINDOW = 64;
const ROOT_PASSWORD = 'bench-password';

interface Phase {
  seconds: number;
  latenciesMs: number[];
  /** CPU seconds each process used during the phase. */
  cpu: Record<string, number>;
  /** How busy the machine's cores were, all processes together (1 = every core all the time). */
  machineBusy: number;
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const hub = { CAREEN_DATABASE_URL: stack.databaseUrl, CAREEN_NATS_URL: stack.natsUrl };
  const exchange = await startServiceProcess('exchange', { ...hub, CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
  const notifier = await startServiceProcess('notifier', {
    ...hub,
    CAREEN_EXCHANGE_URL: exchange.url,
    CAREEN_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.0/8',
    CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    CAREEN_NOTIFIER_RETRY_BASE_MS: '1000',
  });
  const bus = await connectBus({ url: stack.natsUrl, name: 'bench' });
  /** CPU seconds used so far by each process the bench runs, and the machine's. */
  const cpuNow = () => {
    const used = process.cpuUsage();
    return {
      processes: {
        notifier: cpuSeconds(notifier.child.pid!),
        ...stack.cpuSeconds(),
        'bench (publisher, receivers)': (used.user + used.system) / 1e6,
      } as Record<string, number>,
      machine: machineCpuSeconds(),
    };
  };
  /** What ran between `before` and now. */
  const cpuSince = (before: ReturnType<typeof cpuNow>) => {
    const after = cpuNow();
    return {
      cpu: Object.fromEntries(
        Object.entries(after.processes).map(([name, seconds]) => [
          name,
          seconds - (before.processes[name] ?? 0),
        ]),
      ),
      machineBusy: (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total),
    };
  };
  const auth = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;

  // The receivers: one server, a path per subscription; receiver i fails while failing(i).
  const sentAt = new Map<string, number>();
  let arrived: ((id: string) => void) | undefined;
  let failing = (_receiver: number) => false;
  const server = createServer((incoming, response) => {
    const receiver = Number(incoming.url?.split('/')[2]);
    incoming.resume();
    incoming.on('end', () => {
      const ok = !failing(receiver);
      response.writeHead(ok ? 204 : 500);
      response.end();
      if (ok) arrived?.(String(incoming.headers['webhook-id']));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await fetch(`${exchange.url}/v1/orgs`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'bench' }),
    });
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const response = await fetch(`${notifier.url}/v1/subscriptions`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: 'bench',
          scope: 'project',
          project_id: `project-${i}`,
          kind: 'webhook',
          url: `${base}/r/${i}`,
          format: 'cloudevents',
        }),
      });
      if (response.status !== 201)
        throw new Error(`subscribing: ${response.status} ${await response.text()}`);
    }
    const payload = (i: number) => ({
      session_id: 'bench',
      state: 'MAINTENANCE',
      project_id: `project-${i % SUBSCRIPTIONS}`,
      org: 'bench',
      instance_ids: 'http://maintenance:8082/v1/maintenance/bench/p?capability=c',
      metadata: { i },
    });

    /** Publishes `count` events and waits for every one a healthy receiver is owed. */
    const phase = async (
      name: string,
      count: number,
      healthy: (receiver: number) => boolean,
    ): Promise<Phase> => {
      const latenciesMs: number[] = [];
      const expected = new Set<string>();
      for (let i = 0; i < count; i++) if (healthy(i % SUBSCRIPTIONS)) expected.add(`${name}-${i}`);
      const done = new Promise<void>((resolve) => {
        arrived = (id) => {
          const at = sentAt.get(id);
          if (at === undefined || !expected.delete(id)) return;
          latenciesMs.push(performance.now() - at);
          if (expected.size === 0) resolve();
        };
      });
      const cpuBefore = cpuNow();
      const started = performance.now();
      // Published as a relay publishes a backlog: PUBLISH_WINDOW acknowledgements awaited at once.
      let next = 0;
      await Promise.all(
        Array.from({ length: PUBLISH_WINDOW }, async () => {
          while (next < count) {
            const i = next++;
            const id = `${name}-${i}`;
            sentAt.set(id, performance.now());
            await bus.js.publish(
              MaintenanceProjectEvent.subject(`project-${i % SUBSCRIPTIONS}`),
              JSON.stringify(payload(i)),
              {
                msgID: id,
                headers: cloudEventHeaders({
                  id,
                  type: MaintenanceProjectEvent.type,
                  source: 'bench',
                  time: new Date().toISOString(),
                }),
              },
            );
          }
        }),
      );
      await done;
      return { seconds: (performance.now() - started) / 1000, latenciesMs, ...cpuSince(cpuBefore) };
    };

    // Raw: the same POSTs, straight from a loop of RAW_CONCURRENCY callers.
    const agent = new Agent({ keepAlive: true, maxSockets: RAW_CONCURRENCY });
    const rawLatencies: number[] = [];
    const rawCpuBefore = cpuNow();
    const rawStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: RAW_CONCURRENCY }, async () => {
        while (next < EVENTS) {
          const i = next++;
          const body = JSON.stringify(payload(i));
          const started = performance.now();
          await new Promise<void>((resolve, reject) => {
            const outgoing = request(
              `${base}/r/${i % SUBSCRIPTIONS}`,
              {
                method: 'POST',
                agent,
                headers: { 'content-type': 'application/json', 'webhook-id': `raw-${i}` },
              },
              (response) => {
                response.resume();
                response.on('end', resolve);
              },
            );
            outgoing.on('error', reject);
            outgoing.end(body);
          });
          rawLatencies.push(performance.now() - started);
        }
      }),
    );
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    const raw = { seconds: rawSeconds, latenciesMs: rawLatencies, ...cpuSince(rawCpuBefore) };
    agent.destroy();

    const all = await phase('healthy', EVENTS, () => true);
    failing = (receiver) => receiver % 10 === 0;
    const degraded = await phase('degraded', EVENTS, (receiver) => receiver % 10 !== 0);

    const row = (path: string, figures: Phase) => {
      const latency = summarize(figures.latenciesMs);
      return {
        path,
        delivered: figures.latenciesMs.length,
        'events/s': figures.latenciesMs.length / figures.seconds,
        'p50 ms': latency.p50,
        'p99 ms': latency.p99,
        'ratio to raw (events/s)': figures.latenciesMs.length / figures.seconds / (EVENTS / rawSeconds),
      };
    };
    printTable(`notifier: ${SUBSCRIPTIONS} webhook subscriptions, ${EVENTS} events per phase`, [
      row('raw HTTP POST loop', raw),
      row('notifier, every receiver healthy', all),
      row('notifier, 10 % of receivers failing (healthy ones measured)', degraded),
    ]);
    // Where the machine's cores go: once they are busy throughout, the machine is the limit.
    const cpuRow = (path: string, figures: Phase) => ({
      path,
      ...Object.fromEntries(
        Object.entries(figures.cpu).map(([name, seconds]) => [
          name,
          (seconds * 1000) / figures.latenciesMs.length,
        ]),
      ),
      'machine busy (all cores = 1)': figures.machineBusy,
    });
    printTable('CPU ms per delivered event, by process', [
      cpuRow('raw HTTP POST loop', raw),
      cpuRow('notifier, every receiver healthy', all),
      cpuRow('notifier, 10 % of receivers failing', degraded),
    ]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await bus.close();
    await notifier.stop();
    await exchange.stop();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
