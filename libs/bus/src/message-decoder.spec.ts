/**
 * The compiled checks of the payloads every decision and every change carry — a change of the
 * exchange, a release of an HA group's slot — never accept what their class-validator rules
 * refuse, and take what the services send: for payloads made of values on both sides of every
 * rule, whatever the compiled check accepts, class-validator accepts too, as the same payload.
 */
import {
  CHANGE_OPERATIONS,
  CHANGE_RESOURCES,
  ChangePayload,
  checkCompiled,
  MANAGEMENT_STATUSES,
  UPGRADE_HOLDER_KINDS,
  UPGRADE_RELEASE_REASONS,
  UpgradeReleasedPayload,
} from '@careen/contracts';
import { compiledCheckProperty, field, identifiers, isoTimes, mostly, someOf } from '@careen/testing';
import fc from 'fast-check';
import { decodeMessage, validatePayload } from './message-decoder';

const checkedAlike = compiledCheckProperty({
  compiled: checkCompiled,
  classValidator: {
    transform: (value, { metatype }) => {
      const validated = validatePayload(metatype as new () => object, value as object, {
        compiledChecks: false,
      });
      if (!validated.ok) throw new Error(validated.reason);
      return validated.payload;
    },
  },
});

const statusChange = {
  org: 'acme',
  resource: 'managementStatus',
  resourceId: 'edge-1',
  operation: 'updated',
  changedAt: '2026-12-06T22:40:01.123Z',
  byNode: true,
  data: {
    org: 'acme',
    node: 'edge-1',
    nmp: 'upgrade',
    status: 'downloading',
    version: '2.0.0',
    startTime: '2026-12-06T22:40:00.000Z',
    endTime: null,
    error: null,
    attempt: 1,
    fromVersion: '1.0.0',
    updated: '2026-12-06T22:40:01.123Z',
  },
};

const headers = new Map([
  ['ce-specversion', '1.0'],
  ['ce-id', 'exchange-1'],
  ['ce-source', 'careen/exchange'],
  ['ce-type', 'careen.exchange.changed'],
  ['ce-time', '2026-12-06T22:40:01.123Z'],
]);

const decode = (body: unknown) =>
  decodeMessage(
    ChangePayload,
    'careen.exchange.changed',
    new TextEncoder().encode(JSON.stringify(body)),
    headers,
  );

describe('the change payload checked compiled', () => {
  it('is taken only as class-validator takes it', async () => {
    const nodeData = someOf({
      org: field(identifiers),
      id: field(fc.string({ maxLength: 8 })),
      haGroup: field(fc.string({ maxLength: 8 })),
      schedulable: field(fc.boolean()),
      status: field(
        fc.constantFrom(
          {},
          { lastHeartbeat: '2026-12-06T22:40:01Z', workloads: [{ state: 'running' }] },
          { constructor: 'x' },
          { a: { constructor: 1 } },
          { list: [{ constructor: 1 }] },
        ),
      ),
      updatedAt: field(isoTimes),
    });
    const statusData = someOf({
      org: field(identifiers),
      node: field(fc.string({ maxLength: 8 })),
      nmp: field(fc.string({ maxLength: 8 })),
      status: field(mostly(fc.constantFrom(...MANAGEMENT_STATUSES), fc.constantFrom('done', 'Waiting'))),
      attempt: field(mostly(fc.integer({ min: 0, max: 9 }), fc.constantFrom(1.5, -1, 2 ** 53))),
      updated: field(isoTimes),
    });
    const policyData = someOf({ org: field(identifiers), name: field(fc.string({ maxLength: 8 })) });
    const change = someOf({
      org: field(identifiers),
      resource: field(
        mostly(fc.constantFrom('node', 'managementStatus'), fc.constantFrom(...CHANGE_RESOURCES, 'nodes')),
      ),
      resourceId: field(fc.string({ maxLength: 8 })),
      operation: field(mostly(fc.constantFrom(...CHANGE_OPERATIONS), fc.constant('changed'))),
      changedAt: field(isoTimes),
      byNode: field(fc.boolean()),
      event: field(fc.string({ maxLength: 8 })),
      data: field(fc.oneof(nodeData, statusData, policyData)),
    });
    expect(await checkedAlike(ChangePayload, 'body', change, 6_000)).toBeGreaterThan(20);
  });

  it('takes the change of a management status as the exchange sends it', () => {
    expect(checkCompiled(ChangePayload, 'body', statusChange)).toBeInstanceOf(ChangePayload);
    expect(decode(statusChange)).toMatchObject({ ok: true, payload: statusChange });
  });

  it('leaves the rest to class-validator, which names what is wrong and throws on nothing', () => {
    const policyChange = { ...statusChange, resource: 'managementPolicy', data: { org: 'acme' } };
    expect(checkCompiled(ChangePayload, 'body', policyChange)).toBeUndefined();
    expect(decode(policyChange)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('data does not match the managementPolicy change contract'),
    });
    const nodeChange = {
      ...statusChange,
      resource: 'node',
      data: { org: 'acme', id: 'edge-1', schedulable: true, updatedAt: statusChange.changedAt },
    };
    expect(
      decode({ ...nodeChange, data: { ...nodeChange.data, status: { a: [{ constructor: 1 }] } } }),
    ).toEqual({
      ok: false,
      reason: expect.stringContaining('invalid payload'),
    });
    const badStatus = { ...statusChange, data: { ...statusChange.data, status: 'done' } };
    expect(decode(badStatus)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('data does not match the managementStatus change contract'),
    });
  });
});

describe('the release of a slot checked compiled', () => {
  it('is taken only as class-validator takes it', async () => {
    const release = someOf({
      org: field(identifiers),
      node: field(identifiers),
      haGroup: field(fc.string({ maxLength: 8 })),
      holder: field(mostly(fc.constantFrom(...UPGRADE_HOLDER_KINDS), fc.constant('agent'))),
      managementPolicy: field(fc.string({ maxLength: 8 })),
      grantedAt: field(isoTimes),
      leaseExpiresAt: field(isoTimes),
      reason: field(mostly(fc.constantFrom(...UPGRADE_RELEASE_REASONS), fc.constant('done'))),
      releasedAt: field(isoTimes),
    });
    expect(await checkedAlike(UpgradeReleasedPayload, 'body', release, 6_000)).toBeGreaterThan(20);
  });

  it('takes a release as the agbot publishes it', () => {
    const release = {
      org: 'acme',
      node: 'edge-1',
      haGroup: 'rack-1',
      holder: 'agent-upgrade',
      managementPolicy: 'upgrade',
      grantedAt: '2026-12-06T22:40:00.000Z',
      leaseExpiresAt: '2026-12-06T22:50:00.000Z',
      reason: 'terminal-status',
      releasedAt: '2026-12-06T22:41:00.000Z',
    };
    expect(checkCompiled(UpgradeReleasedPayload, 'body', release)).toBeInstanceOf(UpgradeReleasedPayload);
    expect(checkCompiled(UpgradeReleasedPayload, 'body', { ...release, haGroup: null })).toEqual({
      ...release,
      haGroup: null,
    });
  });
});
