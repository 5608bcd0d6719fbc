import { ACTOR_HEADERS, NODE_STATUS_REPORTED, type ChangePayload } from '@careen/contracts';
import { actionEntry, changeEntry, slotEntry } from './audit-entry';

const envelope = (headers: Record<string, string>) => ({
  attributes: { id: 'ce-1', time: '2026-12-06T10:00:00.123Z', source: 'careen/exchange' },
  headers: new Map(Object.entries(headers)),
});
const byAda = {
  [ACTOR_HEADERS.actor]: 'acme/ada',
  [ACTOR_HEADERS.kind]: 'user',
  [ACTOR_HEADERS.via]: 'password',
  [ACTOR_HEADERS.source]: '10.0.0.7',
  [ACTOR_HEADERS.request]: 'req-9',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};
const change = (overrides: Partial<ChangePayload> = {}): ChangePayload => ({
  org: 'acme',
  resource: 'managementPolicy',
  resourceId: 'web',
  operation: 'updated',
  changedAt: '2026-12-06T10:00:00.123Z',
  event: 'paused',
  ...overrides,
});

describe('audit entries', () => {
  it("records a change with its event, target, and who made it from the event's headers", () => {
    expect(changeEntry({ ...envelope(byAda), payload: change() })).toEqual({
      eventId: 'ce-1',
      org: 'acme',
      at: '2026-12-06T10:00:00.123Z',
      actor: 'acme/ada',
      actorKind: 'user',
      via: 'password',
      service: 'exchange',
      action: 'managementPolicy.paused',
      target: 'managementPolicy/web',
      outcome: 'succeeded',
      source: '10.0.0.7',
      requestId: 'req-9',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(
      changeEntry({ ...envelope(byAda), payload: change({ event: undefined, operation: 'deleted' }) })
        ?.action,
    ).toBe('managementPolicy.deleted');
  });

  it("leaves a node's routine status report out", () => {
    const report = change({ resource: 'node', resourceId: 'n1', event: NODE_STATUS_REPORTED, byNode: true });
    expect(
      changeEntry({ ...envelope({ [ACTOR_HEADERS.actor]: 'acme/n1' }), payload: report }),
    ).toBeUndefined();
  });

  it("names Careen's own work after the service, also for an event without actor headers", () => {
    const entry = changeEntry({ ...envelope({}), payload: change() })!;
    expect([entry.actor, entry.actorKind, entry.via, entry.source]).toEqual([
      'careen:exchange',
      'careen',
      null,
      null,
    ]);
  });

  it("leaves an agent's routine slot out: taken for its upgrade, given back when done", () => {
    const slot = {
      org: 'acme',
      node: 'n1',
      haGroup: 'g',
      holder: 'agent-upgrade' as const,
      managementPolicy: 'web',
      grantedAt: '2026-12-06T09:00:00Z',
      leaseExpiresAt: '2026-12-06T10:00:00Z',
    };
    expect(slotEntry('granted')({ ...envelope(byAda), payload: slot })).toBeUndefined();
    for (const reason of ['released', 'terminal-status'])
      expect(slotEntry('released')({ ...envelope(byAda), payload: { ...slot, reason } })).toBeUndefined();
    expect(
      slotEntry('released')({ ...envelope(byAda), payload: { ...slot, reason: 'lease-expired' } })?.action,
    ).toBe('slot.released.lease-expired');
    expect(slotEntry('halted')({ ...envelope(byAda), payload: slot })?.action).toBe('slot.halted');
    expect(
      slotEntry('granted')({ ...envelope(byAda), payload: { ...slot, holder: 'fleetlock' } })?.action,
    ).toBe('slot.granted');
  });

  it('records a slot released with its reason, and an action told by a service as told', () => {
    const released = slotEntry('released')({
      ...envelope(byAda),
      attributes: { id: 'ce-2', time: '2026-12-06T10:00:01Z', source: 'careen/agbot' },
      payload: {
        org: 'acme',
        node: 'n1',
        haGroup: 'g',
        holder: 'agent-upgrade',
        managementPolicy: 'web',
        grantedAt: '2026-12-06T09:00:00Z',
        leaseExpiresAt: '2026-12-06T10:00:00Z',
        reason: 'reset',
      },
    })!;
    expect([released.service, released.action, released.target]).toEqual([
      'agbot',
      'slot.released.reset',
      'node/n1#agent-upgrade',
    ]);
    const told = actionEntry({
      ...envelope(byAda),
      payload: { org: 'acme', action: 'session.abort', target: 'session/s1', outcome: 'succeeded' },
    });
    expect([told.action, told.target, told.actor]).toEqual(['session.abort', 'session/s1', 'acme/ada']);
  });
});
