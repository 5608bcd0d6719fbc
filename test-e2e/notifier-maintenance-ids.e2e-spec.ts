/**
 * One maintenance event as the maintenance service publishes it, followed on the bus, by a
 * CloudEvents webhook and on the event stream, against the real exchange, agbot, maintenance
 * service, notifier and JetStream: each place carries both of the event's ids, the same in all
 * three — its identity (`ce-id`) and its CAREEN_MAINT stream sequence (the stream's SSE `id`).
 */
import { type MaintenanceProjectEventPayload } from '@careen/contracts';
import { type NotifierConfig } from '@careen/notifier/src/notifier.config';
import { type InProcessService } from '@careen/service';
import { eventually, http, useTestInfra } from '@careen/testing';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ADA, startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

interface StreamedEvent {
  id: string;
  data: { id: string; streamsequence: string; data: MaintenanceProjectEventPayload };
}

describe('maintenance events: one identity on the bus, in webhooks and on the event stream', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let notifier: InProcessService<NotifierConfig>;
  let server: Server;
  const hooks: { headers: IncomingHttpHeaders; body: MaintenanceProjectEventPayload }[] = [];

  beforeAll(async () => {
    hub = await startMaintenanceHub(infra, {
      env: { CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED: 'true' },
      notifier: true,
    });
    notifier = hub.notifier!;
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        hooks.push({ headers: request.headers, body: JSON.parse(body) });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await hub?.close();
  });

  it('gives every place both ids of the same event', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const subscribed = await http(notifier.url, 'POST', '/v1/subscriptions', {
      auth: ADA,
      body: { scope: 'project', project_id: 'red', kind: 'webhook', format: 'cloudevents', url },
    });
    expect(subscribed.status).toBe(201);
    const stream = await fetch(`${notifier.url}/v1/stream?project_id=red`, {
      headers: { authorization: `Basic ${Buffer.from('acme/ada:ada-password').toString('base64')}` },
    });
    const chunks = stream.body![Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    let buffer = decoder.decode((await chunks.next()).value as Uint8Array);
    expect(buffer).toMatch(/^retry: /);

    const started = await hub.call('POST', '/v1/maintenance', {
      hosts: ['s1'],
      host_action: { kind: 'simulated', seconds: 0 },
      reply_timeout_seconds: 1,
    });
    expect(started.status).toBe(201);

    // The first event of the session on the stream: MAINTENANCE to project red.
    let streamed: StreamedEvent | undefined;
    while (!streamed) {
      const end = buffer.indexOf('\n\n');
      if (end < 0) {
        const chunk = await chunks.next();
        if (chunk.done) throw new Error(`the event stream ended before an event came; it sent: ${buffer}`);
        buffer += decoder.decode(chunk.value as Uint8Array);
        continue;
      }
      const fields = Object.fromEntries(
        buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.includes(': ') && !line.startsWith(':'))
          .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
      );
      buffer = buffer.slice(end + 2);
      if (fields.data) streamed = { id: fields.id!, data: JSON.parse(fields.data) };
    }
    await chunks.return?.();
    expect(streamed.data.data).toMatchObject({ session_id: started.body.session_id, state: 'MAINTENANCE' });
    expect(streamed.data.streamsequence).toBe(streamed.id);

    const hook = await eventually(() => {
      const found = hooks.find(
        (each) => each.body.session_id === started.body.session_id && each.body.state === 'MAINTENANCE',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(hook.headers['ce-id']).toBe(streamed.data.id);
    expect(hook.headers['ce-streamsequence']).toBe(streamed.id);

    const onBus = await hub.bus.jsm.streams.getMessage('CAREEN_MAINT', { seq: Number(streamed.id) });
    expect(onBus!.header.get('ce-id')).toBe(streamed.data.id);
  });
});
