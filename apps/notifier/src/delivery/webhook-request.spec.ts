import { MaintenanceAdminEvent, MaintenanceProjectEvent } from '@careen/contracts';
import { Webhook } from 'standardwebhooks';
import { type Subscription } from '../subscriptions/subscription';
import { type Delivery } from './delivery';
import { webhookRequest } from './webhook-request';

const NOW = new Date('2026-12-01T02:00:00.000Z');
const SECRET = `whsec_${Buffer.from('a subscription secret of 32 byte').toString('base64')}`;
const OLD = `whsec_${Buffer.from('the secret being rotated out....').toString('base64')}`;

const subscription = (
  format: Subscription['format'],
  eventNames: Subscription['eventNames'] = 'guideline',
): Subscription => ({
  id: '6b1c0d8e-0000-4000-8000-000000000001',
  org: 'acme',
  scope: 'project',
  project: 'shop',
  hosts: [],
  states: [],
  kind: 'webhook',
  url: 'https://vnfm.example/hook',
  format,
  eventNames,
  secrets: [
    { secret: OLD, expiresAt: '2026-12-01T03:00:00.000Z' },
    { secret: SECRET, expiresAt: null },
  ],
  natsUser: null,
  credentialsExpireAt: null,
  createdBy: 'acme/ada',
  createdAt: NOW,
});

const delivery = (more: Partial<Delivery> = {}): Delivery => ({
  id: '1',
  subscriptionId: '6b1c0d8e-0000-4000-8000-000000000001',
  eventId: 'maintenance-session-42',
  eventType: MaintenanceProjectEvent.type,
  eventTime: '2026-12-01T01:59:59.000Z',
  eventSource: 'careen/maintenance-session',
  eventSequence: 43,
  subject: 'careen.maint.project.shop',
  payload: {
    session_id: 's-1',
    state: 'PREPARE_MAINTENANCE',
    project_id: 'shop',
    instance_ids: 'http://maintenance:8082/v1/maintenance/s-1/shop?capability=c',
    reply_url: 'http://maintenance:8082/v1/maintenance/s-1/shop?capability=c',
    actions_at: '2026-12-01T02:01:00.000Z',
    allowed_actions: ['MIGRATE', 'LIVE_MIGRATE'],
    metadata: { reason: 'kernel' },
    host: 'h1',
    instances: ['web@h1'],
  },
  state: 'pending',
  attempts: 0,
  lastError: null,
  createdAt: NOW.toISOString(),
  nextAttemptAt: NOW.toISOString(),
  deadlineAt: NOW.toISOString(),
  deliveredAt: null,
  ...more,
});

describe('webhook requests', () => {
  it('sends CloudEvents in binary mode: the attributes as headers, the payload as the body', () => {
    const request = webhookRequest(subscription('cloudevents'), delivery(), NOW);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': 'maintenance-session-42',
      'ce-type': 'careen.maintenance.project-event',
      'ce-source': 'careen/maintenance-session',
      'ce-time': '2026-12-01T01:59:59.000Z',
      'ce-streamsequence': '43',
      'webhook-id': 'maintenance-session-42',
      'webhook-timestamp': String(NOW.getTime() / 1000),
    });
    expect(JSON.parse(request.body)).toEqual(delivery().payload);
  });

  it('signs with every live secret, each verifying with the Standard Webhooks library', () => {
    jest.useFakeTimers({ now: NOW });
    try {
      const request = webhookRequest(subscription('cloudevents'), delivery(), NOW);
      expect(request.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      for (const secret of [SECRET, OLD])
        expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
      expect(() => new Webhook(SECRET).verify(request.body.replace('h1', 'h2'), request.headers)).toThrow();
      const later = webhookRequest(
        subscription('cloudevents'),
        delivery(),
        new Date('2026-12-01T03:00:00.000Z'),
      );
      expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it("posts AODH's event-alarm body, the payload as typed traits", () => {
    const body = JSON.parse(webhookRequest(subscription('aodh'), delivery(), NOW).body);
    expect(body).toMatchObject({
      alarm_name: 'careen-6b1c0d8e-0000-4000-8000-000000000001',
      alarm_id: '6b1c0d8e-0000-4000-8000-000000000001',
      current: 'alarm',
      previous: 'ok',
      severity: 'moderate',
      reason_data: {
        type: 'event',
        event: {
          message_id: 'maintenance-session-42',
          event_type: 'maintenance.scheduled',
          generated: '2026-12-01T01:59:59.000Z',
        },
      },
    });
    expect(body.reason_data.event.traits).toEqual([
      ['session_id', 1, 's-1'],
      ['state', 1, 'PREPARE_MAINTENANCE'],
      ['project_id', 1, 'shop'],
      ['instance_ids', 1, 'http://maintenance:8082/v1/maintenance/s-1/shop?capability=c'],
      ['reply_url', 1, 'http://maintenance:8082/v1/maintenance/s-1/shop?capability=c'],
      ['actions_at', 4, '2026-12-01T02:01:00.000Z'],
      ['allowed_actions', 1, '["MIGRATE","LIVE_MIGRATE"]'],
      ['metadata', 1, '{"reason":"kernel"}'],
      ['host', 1, 'h1'],
      ['instances', 1, '["web@h1"]'],
    ]);
    const admin = JSON.parse(
      webhookRequest(subscription('aodh'), delivery({ eventType: MaintenanceAdminEvent.type }), NOW).body,
    );
    expect(admin.reason_data.event.event_type).toBe('maintenance.host');
  });

  describe("with Fenix's event names", () => {
    const traits = (payload: Record<string, unknown>) => {
      const request = webhookRequest(subscription('aodh', 'fenix'), delivery({ payload }), NOW);
      const body = JSON.parse(request.body) as {
        reason_data: { event: { traits: [string, number, unknown][] } };
      };
      return Object.fromEntries(body.reason_data.event.traits.map(([name, , value]) => [name, value]));
    };

    it('names DOWN_SCALE SCALE_IN, as Fenix does', () => {
      expect(traits({ ...delivery().payload, state: 'DOWN_SCALE', host: undefined }).state).toBe('SCALE_IN');
    });

    it("gives a host's states the instances they are about as instance_ids, and the deadline as reply_at", () => {
      const fenix = traits(delivery().payload);
      expect(fenix.state).toBe('PREPARE_MAINTENANCE');
      expect(JSON.parse(fenix.instance_ids as string)).toEqual(['web@h1']);
      expect(fenix.reply_at).toBe('2026-12-01T02:01:00.000Z');
    });

    it("leaves the guideline's names to subscriptions that keep them", () => {
      const request = webhookRequest(
        subscription('cloudevents'),
        delivery({ payload: { ...delivery().payload, state: 'DOWN_SCALE' } }),
        NOW,
      );
      expect(JSON.parse(request.body)).toMatchObject({
        state: 'DOWN_SCALE',
        instance_ids: expect.any(String),
      });
    });
  });
});
