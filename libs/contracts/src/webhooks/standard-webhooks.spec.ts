import { Webhook } from 'standardwebhooks';
import { signWebhook, webhookSignatureProblem } from './standard-webhooks';

const SECRET = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
const NOW = new Date('2026-12-01T02:00:00.000Z');
const TS = NOW.getTime() / 1000;
const BODY = '{"state":"MAINTENANCE"}';

describe('Standard Webhooks signatures', () => {
  it('takes a delivery signed with the secret, also among the signatures of a rotation', () => {
    const signature = signWebhook(SECRET, 'msg_1', TS, BODY);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(
      webhookSignatureProblem(SECRET, { id: 'msg_1', timestamp: String(TS), signature }, BODY, NOW),
    ).toBeUndefined();
    const rotating = `v1,b2xkIHNpZ25hdHVyZQ== ${signature}`;
    expect(
      webhookSignatureProblem(SECRET, { id: 'msg_1', timestamp: String(TS), signature: rotating }, BODY, NOW),
    ).toBeUndefined();
  });

  it('refuses another body, another id, an old timestamp or missing headers', () => {
    const signature = signWebhook(SECRET, 'msg_1', TS, BODY);
    const check = (id: string, timestamp: number, body: string) =>
      webhookSignatureProblem(SECRET, { id, timestamp: String(timestamp), signature }, body, NOW);
    expect(check('msg_1', TS, '{"state":"DOWN_SCALE"}')).toBe('no webhook-signature matches the secret');
    expect(check('msg_2', TS, BODY)).toBe('no webhook-signature matches the secret');
    expect(check('msg_1', TS - 301, BODY)).toContain('more than 300 s away');
    expect(webhookSignatureProblem(SECRET, { id: 'msg_1' }, BODY, NOW)).toContain('are required');
  });

  it('signs as the Standard Webhooks reference library verifies, and a tampered body fails it', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_2',
      'webhook-timestamp': String(now),
      'webhook-signature': signWebhook(SECRET, 'msg_2', now, BODY),
    };
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual({ state: 'MAINTENANCE' });
    expect(() => new Webhook(SECRET).verify('{"state":"DOWN_SCALE"}', headers)).toThrow();
  });
});
