import { OrgControls } from './disruption-gate';

const node = { id: 'edge-1', labels: { site: 'ams' }, rack: null, haGroup: null };
const NOW = new Date('2026-12-06T10:00:00Z');
const none = () => undefined;

describe('OrgControls', () => {
  it.each([
    ['budget', { maxUnavailable: 'half' }, 'budget "broken" cannot be read (must be a percentage'],
    [
      'freeze',
      { from: 'soon', until: '2027-01-01T00:00:00Z' },
      'freeze "broken" cannot be read (from and until',
    ],
    [
      'window',
      { days: 'mon', start: '01:00', durationMinutes: 60, timeZone: 'UTC' },
      'window "broken" cannot be read',
    ],
    ['gate', { prometheusUrl: 'http://p', matchers: [], scope: 'all' }, 'gate "broken" cannot be read'],
  ] as const)('keeps the nodes of a %s it cannot read closed, and others open', (kind, settings, message) => {
    const controls = new OrgControls([
      { kind, data: { org: 'acme', name: 'broken', selector: { labels: { site: 'ams' } }, ...settings } },
    ]);
    expect(controls.refusalBeforeBudgets(node, NOW, undefined, none)).toEqual({
      reason: 'unreadable',
      control: 'broken',
      message: expect.stringContaining(message),
    });
    expect(
      controls.refusalBeforeBudgets({ ...node, labels: { site: 'fra' } }, NOW, undefined, none),
    ).toBeUndefined();
    expect(controls.budgetsCovering(node)).toEqual([]);
  });

  it('asks freezes, windows, the busy declaration and alert gates in that order', () => {
    const controls = new OrgControls([
      {
        kind: 'freeze',
        data: {
          org: 'acme',
          name: 'f',
          selector: {},
          from: '2026-12-01T00:00:00Z',
          until: '2026-12-07T00:00:00Z',
        },
      },
      {
        kind: 'gate',
        data: {
          org: 'acme',
          name: 'g',
          selector: {},
          prometheusUrl: 'http://p',
          matchers: ['a="b"'],
          scope: 'all',
        },
      },
    ]);
    const busy = {
      reason: 'backup',
      until: new Date('2026-12-06T11:00:00Z'),
      declaredBy: 'node acme/edge-1',
    };
    expect(controls.refusalBeforeBudgets(node, NOW, busy, none)?.reason).toBe('freeze');
    const later = new Date('2026-12-06T10:30:00Z');
    const noFreeze = new OrgControls([
      {
        kind: 'gate',
        data: {
          org: 'acme',
          name: 'g',
          selector: {},
          prometheusUrl: 'http://p',
          matchers: ['a="b"'],
          scope: 'all',
        },
      },
    ]);
    expect(noFreeze.refusalBeforeBudgets(node, later, busy, none)?.reason).toBe('busy');
    expect(noFreeze.refusalBeforeBudgets(node, later, undefined, none)?.reason).toBe('gate');
  });
});
