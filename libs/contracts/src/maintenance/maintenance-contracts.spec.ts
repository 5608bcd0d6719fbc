import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  MaintenanceAdminEvent,
  MaintenanceProjectEvent,
  MaintenanceProjectEventPayload,
  MaintenanceReply,
  MaintenanceReplyPayload,
} from './maintenance-events';
import { parseReplyState, REPLIED_STATES } from './maintenance-states';

const problems = (cls: new () => object, body: object) =>
  validateSync(plainToInstance(cls, body), { whitelist: true, forbidNonWhitelisted: true }).map(
    (error) => error.property,
  );

describe('maintenance replies', () => {
  it.each([
    ['ACK_MAINTENANCE', { ack: true, state: 'MAINTENANCE' }],
    ['NACK_PREPARE_MAINTENANCE', { ack: false, state: 'PREPARE_MAINTENANCE' }],
    ['ACK_SCALE_IN', { ack: true, state: 'DOWN_SCALE' }],
    ['NACK_SCALE_IN', { ack: false, state: 'DOWN_SCALE' }],
    ['MAINTENANCE_COMPLETE_ACK', { ack: true, state: 'MAINTENANCE_COMPLETE' }],
  ])('reads %s', (raw, parsed) => {
    expect(parseReplyState(raw)).toEqual(parsed);
  });

  it.each([['ACK_INSTANCE_ACTION_DONE'], ['ACK_IN_MAINTENANCE'], ['ack_maintenance'], ['MAINTENANCE'], ['']])(
    'refuses %j: no state waits for it',
    (raw) => {
      expect(parseReplyState(raw)).toBeUndefined();
    },
  );

  it('reads an ACK and a NACK of every state that waits for a reply', () => {
    for (const state of REPLIED_STATES) {
      expect(parseReplyState(`ACK_${state}`)).toEqual({ ack: true, state });
      expect(parseReplyState(`NACK_${state}`)).toEqual({ ack: false, state });
    }
  });

  it('takes a Fenix reply body as Fenix clients send it, and names a field of the wrong type', () => {
    const fenix = {
      state: 'ACK_PREPARE_MAINTENANCE',
      instance_actions: { 'web@h1': 'MIGRATE' },
      session_id: 's-1',
      instance_ids: ['web@h1'],
    };
    expect(problems(MaintenanceReplyPayload, fenix)).toEqual([]);
    expect(
      problems(MaintenanceReplyPayload, { state: 'ACK_MAINTENANCE', instance_actions: ['MIGRATE'] }),
    ).toEqual(['instance_actions']);
    expect(problems(MaintenanceReplyPayload, { state: 'ACK_MAINTENANCE', extra: 1 })).toEqual(['extra']);
  });

  it('refuses a reply state no state waits for, as the bus and the HTTP route both read it', () => {
    expect(problems(MaintenanceReplyPayload, { state: 'ACK_IN_MAINTENANCE' })).toEqual(['state']);
    expect(problems(MaintenanceReplyPayload, { state: 7 })).toEqual(['state']);
    expect(problems(MaintenanceReplyPayload, { state: 'ACK_SCALE_IN' })).toEqual([]);
  });
});

describe('maintenance events', () => {
  it("checks a project event's fields and their names", () => {
    const event = {
      session_id: 's-1',
      state: 'PREPARE_MAINTENANCE',
      project_id: 'web',
      instance_ids: 'http://maintenance:8082/v1/maintenance/s-1/web?capability=x',
      reply_url: 'http://maintenance:8082/v1/maintenance/s-1/web?capability=x',
      actions_at: '2026-12-01T02:00:00.000Z',
      allowed_actions: ['MIGRATE', 'LIVE_MIGRATE'],
      metadata: { careen_version: '1.2.0' },
      host: 'h1',
    };
    expect(problems(MaintenanceProjectEventPayload, event)).toEqual([]);
    expect(
      problems(MaintenanceProjectEventPayload, {
        ...event,
        state: 'IN_MAINTENANCE',
        allowed_actions: ['REBOOT'],
      }),
    ).toEqual(['state', 'allowed_actions']);
  });

  it('puts each event on its subject, and refuses a token that would leave it', () => {
    expect(MaintenanceProjectEvent.subject('web')).toBe('careen.maint.project.web');
    expect(MaintenanceAdminEvent.subject('h1')).toBe('careen.maint.admin.h1');
    expect(MaintenanceReply.subject('s-1', 'web')).toBe('careen.maint.reply.s-1.web');
    expect(() => MaintenanceProjectEvent.subject('web.>')).toThrow('subject token');
  });
});
