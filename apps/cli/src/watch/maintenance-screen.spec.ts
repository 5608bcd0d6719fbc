import { renderSession, type SessionWithTimeline } from './maintenance-screen';

const NOW = new Date('2026-12-01T02:10:00.000Z');

const SESSION: SessionWithTimeline = {
  session_id: '0b5e6a4c-1111-4222-8333-444455556666',
  org: 'acme',
  state: 'PLANNED_MAINTENANCE',
  paused: false,
  failure: null,
  created_by: 'acme/ada',
  created_at: '2026-12-01T02:00:00.000Z',
  updated_at: '2026-12-01T02:09:30.000Z',
  closed_at: null,
  actions_at: '2026-12-01T02:01:00.000Z',
  host_action: { kind: 'manual' },
  max_parallel_hosts: 1,
  metadata: {},
  hosts: [
    { host: 'h1', ha_group: 'pair', phase: 'done', since: '2026-12-01T02:05:00.000Z', reason: null },
    {
      host: 'h2',
      ha_group: 'pair',
      phase: 'in-maintenance',
      since: '2026-12-01T02:09:30.000Z',
      reason: null,
    },
    {
      host: 's1',
      ha_group: null,
      phase: 'skipped',
      since: '2026-12-01T02:01:00.000Z',
      reason: 'project "red" did not acknowledge PREPARE_MAINTENANCE (nack)',
    },
  ],
  projects: [
    {
      project_id: 'red',
      subscribed: true,
      reply_timeout_seconds: 60,
      reply_timeout_policy: 'proceed',
      instance_ids: ['web@h1', 'web@h2'],
      asks: [
        {
          state: 'PLANNED_MAINTENANCE',
          host: 'h2',
          asked_at: '2026-12-01T02:09:00.000Z',
          deadline: '2026-12-01T02:10:00.000Z',
          answer: 'ack',
          answered_at: '2026-12-01T02:09:20.000Z',
          instance_actions: null,
        },
      ],
    },
    {
      project_id: 'blue',
      subscribed: false,
      reply_timeout_seconds: 60,
      reply_timeout_policy: 'proceed',
      instance_ids: ['db@h2'],
      asks: [],
    },
  ],
  timeline: [
    {
      at: '2026-12-01T02:09:30.000Z',
      kind: 'sent',
      project_id: null,
      host: 'h2',
      state: 'IN_MAINTENANCE',
      detail: {},
    },
  ],
};

describe('renderSession', () => {
  it('shows the headline, each host, each project with its last ask, and the latest timeline', () => {
    const lines = renderSession(SESSION, NOW).split('\n');
    expect(lines[0]).toBe('session 0b5e6a4c-1111-4222-8333-444455556666 (acme): PLANNED_MAINTENANCE');
    expect(lines[1]).toBe('hosts 1/3 done, 1 skipped · host action manual · started 10m ago');
    expect(lines.find((line) => line.startsWith('h2'))).toMatch(/^h2 +pair +in-maintenance +30s ago/);
    expect(lines.find((line) => line.startsWith('s1'))).toContain(
      'did not acknowledge PREPARE_MAINTENANCE (nack)',
    );
    expect(lines.find((line) => line.startsWith('red'))).toMatch(/^red +2 +yes +PLANNED_MAINTENANCE h2: ack/);
    expect(lines.find((line) => line.startsWith('blue'))).toMatch(/^blue +1 +no +not asked/);
    expect(lines).toContain('2026-12-01T02:09:30.000Z  sent     admin IN_MAINTENANCE h2');
  });

  it('says why a failed session failed, and that it is paused', () => {
    const failed = renderSession(
      { ...SESSION, state: 'MAINTENANCE_FAILED', paused: true, failure: 'aborted by an admin' },
      NOW,
    );
    expect(failed.split('\n')[0]).toMatch(/MAINTENANCE_FAILED, paused$/);
    expect(failed.split('\n')[2]).toBe('failed: aborted by an admin');
  });
});
