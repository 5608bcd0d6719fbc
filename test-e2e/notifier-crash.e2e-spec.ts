/**
 * The notifier killed (SIGKILL) in the middle of its deliveries and started again: the receiver
 * gets every event, in order; an event may come twice (at least once), and then with the same
 * `webhook-id`.
 */
import { connectBus, cloudEventHeaders, type BusConnection } from '@careen/bus';
import { MaintenanceProjectEvent } from '@careen/contracts';
import { freePort } from '@careen/devstack';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { KillableService } from './support/killable-service';

const ROOT = basic('root', 'root', 'root-password-1');
const EVENTS = 12;

describe('notifier: killed mid-delivery', () => {
  const infra = useTestInfra();
  let bus: BusConnection;
  let receiver: Server;
  let notifier: KillableService;
  /** The webhook-id of each call the receiver answered, in order. */
  const received: string[] = [];
  let calls = 0;

  beforeAll(async () => {
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: ROOT, body: { id: 'acme' } });
    bus = await connectBus({ url: infra.natsUrl, name: 'notifier-crash-test' });
    infra.track(() => bus.close());
    // A receiver that takes its time, so that calls are in flight when the notifier dies.
    receiver = createServer((request, response) => {
      calls++;
      request.resume();
      setTimeout(() => {
        received.push(String(request.headers['webhook-id']));
        response.writeHead(204);
        response.end();
      }, 150);
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const port = await freePort();
    notifier = new KillableService('notifier', port, () => ({
      CAREEN_DATABASE_URL: infra.databaseUrl,
      CAREEN_NATS_URL: infra.natsUrl,
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_NOTIFIER_PORT: String(port),
      CAREEN_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.0/8',
      CAREEN_NOTIFIER_EXCHANGE_PASSWORD: 'root-password-1',
      CAREEN_NOTIFIER_WEBHOOK_TIMEOUT_MS: '1000',
      CAREEN_NOTIFIER_RETRY_BASE_MS: '50',
      CAREEN_NOTIFIER_RETRY_MAX_MS: '200',
    }));
    await notifier.start();
  });

  afterAll(async () => {
    await notifier?.kill();
    await new Promise((done) => receiver.close(done));
  });

  it('delivers every event after a SIGKILL, in order, a repeat only with the same id', async () => {
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const subscribed = await http(notifier.url, 'POST', '/v1/subscriptions', {
      auth: ROOT,
      body: {
        org: 'acme',
        scope: 'project',
        project_id: 'shop',
        kind: 'webhook',
        url: hook,
        format: 'cloudevents',
      },
    });
    expect(subscribed.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const id = `event-${String(i).padStart(2, '0')}`;
      ids.push(id);
      await bus.js.publish(
        MaintenanceProjectEvent.subject('shop'),
        JSON.stringify({
          session_id: 's-1',
          state: 'MAINTENANCE',
          project_id: 'shop',
          org: 'acme',
          instance_ids: 'http://maintenance:8082/v1/maintenance/s-1/shop?capability=c',
          metadata: { i },
        }),
        {
          msgID: id,
          headers: cloudEventHeaders({
            id,
            type: MaintenanceProjectEvent.type,
            source: 'careen/maintenance-session',
            time: new Date().toISOString(),
          }),
        },
      );
    }
    // Killed with a few delivered and a call under way.
    await eventually(() => expect(received.length).toBeGreaterThanOrEqual(3), { intervalMs: 5 });
    await notifier.kill();
    const before = calls;
    await notifier.start();
    await eventually(() => expect(new Set(received)).toEqual(new Set(ids)), { timeoutMs: 30_000 });
    expect(calls).toBeGreaterThan(before);
    // In order: the first time each id came is the order it was published.
    const firsts = received.filter((id, index) => received.indexOf(id) === index);
    expect(firsts).toEqual(ids);
    // A repeat is the call that was under way, sent again with its id.
    expect(received.length - ids.length).toBeLessThanOrEqual(1);
  });
});
