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
  counts: { hosts: 3, waiting: 0, under_way: 1, done: 1, skipped: 1, interrupted: 0 },
  hosts_summary: '1/3 done, 1 under way, 1 skipped',
  hosts: [
    {
      host: 'h1',
      ha_group: 'pair',
      phase: 'done',
      since: '2026-12-01T02:05:00.000Z',
      reason: null,
      interrupted_in: null,
      waiting_for: null,
    },
    {
      host: 'h2',
      ha_group: 'pair',
      phase: 'in-maintenance',
      since: '2026-12-01T02:09:30.000Z',
      reason: null,
      interrupted_in: null,
      waiting_for: null,
    },
    {
      host: 's1',
      ha_group: null,
      phase: 'skipped',
      since: '2026-12-01T02:01:00.000Z',
      reason: 'project "red" did not acknowledge PREPARE_MAINTENANCE (nack)',
      interrupted_in: null,
      waiting_for: null,
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
      summary: 'IN_MAINTENANCE',
    },
    {
      at: '2026-12-01T02:09:40.000Z',
      kind: 'note',
      project_id: null,
      host: null,
      state: null,
      detail: { message: 'session paused' },
      summary: 'session paused',
    },
  ],
};

describe('renderSession', () => {
  it('shows the headline, each host, each project with its last ask, and the latest timeline', () => {
    const lines = renderSession(SESSION, NOW).split('\n');
    expect(lines[0]).toBe('session 0b5e6a4c-1111-4222-8333-444455556666 (acme): PLANNED_MAINTENANCE');
    expect(lines[1]).toBe('hosts 1/3 done, 1 under way, 1 skipped · host action manual · started 10m ago');
    expect(lines.find((line) => line.startsWith('h2'))).toMatch(/^h2 +pair +in-maintenance +30s ago/);
    expect(lines.find((line) => line.startsWith('s1'))).toContain(
      'did not acknowledge PREPARE_MAINTENANCE (nack)',
    );
    expect(lines.find((line) => line.startsWith('red'))).toMatch(/^red +2 +yes +PLANNED_MAINTENANCE h2: ack/);
    expect(lines.find((line) => line.startsWith('blue'))).toMatch(/^blue +1 +no +not asked/);
    expect(lines).toContain('2026-12-01T02:09:30.000Z  sent     admin IN_MAINTENANCE h2');
    expect(lines).toContain('2026-12-01T02:09:40.000Z  note     session paused');
  });

  it('says why a failed session failed, and that it is paused', () => {
    const failed = renderSession(
      { ...SESSION, state: 'MAINTENANCE_FAILED', paused: true, failure: 'aborted by an admin' },
      NOW,
    );
    expect(failed.split('\n')[0]).toMatch(/MAINTENANCE_FAILED, paused$/);
    expect(failed.split('\n')[2]).toBe('failed: aborted by an admin');
  });

  it('names who holds the slot a host waits for, and what a host was doing when it was interrupted', () => {
    const [h1, h2] = SESSION.hosts;
    const shown = renderSession(
      {
        ...SESSION,
        hosts: [
          {
            ...h1!,
            phase: 'interrupted',
            reason: 'aborted by an admin',
            interrupted_in: 'in-maintenance',
          },
          {
            ...h2!,
            phase: 'slot',
            waiting_for: {
              kind: 'agent-upgrade',
              node: 'h9',
              management_policy: 'agents-2-31',
              session: null,
              since: '2026-12-01T02:08:00.000Z',
              lease_expires_at: '2026-12-01T02:12:00.000Z',
              halted: false,
              seen_at: '2026-12-01T02:09:59.000Z',
            },
          },
        ],
      },
      NOW,
    ).split('\n');
    expect(lines(shown, 'h1')).toContain('aborted by an admin (while in-maintenance)');
    expect(lines(shown, 'h2')).toContain('slot held by h9 (agent-upgrade agents-2-31) since 2m ago');
  });
});

const lines = (all: string[], host: string) => all.find((line) => line.startsWith(`${host} `)) ?? '';
