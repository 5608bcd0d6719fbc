/**
 * The reference VNF manager following its project by webhook, as the notifier delivers: signed
 * CloudEvents posted to it, answered by PUT to the event's reply_url. The maintenance service is
 * a small HTTP server here, answering instance_ids and recording replies.
 */
import { MaintenanceProjectEvent, type MaintenanceProjectEventPayload, signWebhook } from '@careen/contracts';
import { createLogger } from '@careen/telemetry';
import { eventually } from '@careen/testing';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ReferenceVnfManager } from './reference-vnf-manager';

const SECRET = `whsec_${Buffer.from('the subscription secret, 32 byte').toString('base64')}`;

describe('the reference VNF manager by webhook', () => {
  let service: Server;
  let serviceUrl: string;
  let managerUrl: string;
  let manager: ReferenceVnfManager;
  const replies: { url: string; body: Record<string, unknown> }[] = [];

  const event = (
    state: string,
    more: Partial<MaintenanceProjectEventPayload> = {},
  ): MaintenanceProjectEventPayload =>
    ({
      session_id: 's-1',
      state,
      project_id: 'shop',
      instance_ids: `${serviceUrl}/v1/maintenance/s-1/shop?capability=c`,
      reply_url: `${serviceUrl}/v1/maintenance/s-1/shop?capability=c`,
      metadata: {},
      ...more,
    }) as MaintenanceProjectEventPayload;

  const deliver = (payload: object, id: string, options: { secret?: string; type?: string } = {}) => {
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(Date.now() / 1000);
    return fetch(managerUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': id,
        'ce-type': options.type ?? MaintenanceProjectEvent.type,
        'ce-source': 'careen/notifier',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(options.secret ?? SECRET, id, timestamp, body),
      },
      body,
    });
  };

  beforeAll(async () => {
    service = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.method === 'GET') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              instances: [
                { instance_id: 'web@h1', host: 'h1' },
                { instance_id: 'web@h2', host: 'h2' },
              ],
            }),
          );
          return;
        }
        replies.push({ url: request.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    manager = new ReferenceVnfManager({
      project: 'shop',
      follow: { via: 'webhook', port: 0, secret: SECRET },
      replyVia: 'http',
      logger: createLogger('vnf-manager', { level: 'error' }),
    });
    managerUrl = (await manager.start())!;
  });

  afterAll(async () => {
    await manager.stop();
    await new Promise((resolve) => service.close(resolve));
  });

  it('answers a signed delivery by reply_url, with an action per instance on the host', async () => {
    const answer = await deliver(
      event('PREPARE_MAINTENANCE', { host: 'h1', allowed_actions: ['MIGRATE', 'LIVE_MIGRATE'] }),
      'msg_1',
    );
    expect(answer.status).toBe(204);
    expect(replies).toEqual([
      {
        url: '/v1/maintenance/s-1/shop?capability=c',
        body: {
          state: 'ACK_PREPARE_MAINTENANCE',
          instance_actions: { 'web@h1': 'LIVE_MIGRATE' },
          session_id: 's-1',
        },
      },
    ]);
  });

  it('acknowledges a redelivery without answering twice, and an event that waits for nothing without answering', async () => {
    expect((await deliver(event('PREPARE_MAINTENANCE', { host: 'h1' }), 'msg_1')).status).toBe(204);
    expect(
      (await deliver(event('INSTANCE_ACTION_DONE', { reply_url: undefined, host: 'h1' }), 'msg_2')).status,
    ).toBe(204);
    await eventually(() => expect(replies).toHaveLength(1));
  });

  it('refuses a delivery signed with another secret, of another type, another project or a broken payload', async () => {
    const other = `whsec_${Buffer.from('another secret').toString('base64')}`;
    expect((await deliver(event('MAINTENANCE'), 'msg_3', { secret: other })).status).toBe(401);
    expect((await deliver(event('MAINTENANCE'), 'msg_4', { type: 'careen.other' })).status).toBe(400);
    expect((await deliver(event('MAINTENANCE', { project_id: 'other' }), 'msg_5')).status).toBe(400);
    const broken = await deliver({ ...event('MAINTENANCE'), state: 'REBOOT' }, 'msg_6');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { message: string }).message).toContain('state');
    expect(replies).toHaveLength(1);
  });
});
