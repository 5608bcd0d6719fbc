import { resumeWindow, type StoppedRollout } from './resume-window';

const published = new Date('2026-12-01T02:00:00.000Z');
const rollout = (changes: Partial<StoppedRollout> = {}): StoppedRollout => ({
  agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 600, action: 'install' },
  lastUpdated: published,
  resumeWindow: null,
  stoppedAt: new Date('2026-12-01T02:04:00.000Z'),
  ...changes,
});
const at = (iso: string) => new Date(iso);

describe('resumeWindow', () => {
  it('spreads the nodes left over what was left of the window when it was paused, from the resume on', () => {
    expect(resumeWindow(rollout(), at('2026-12-01T03:00:00.000Z'))).toEqual({
      start: '2026-12-01T03:00:00.000Z',
      duration: 360,
    });
  });

  it('takes the window the caller gives instead', () => {
    expect(resumeWindow(rollout(), at('2026-12-01T03:00:00.000Z'), 90)).toEqual({
      start: '2026-12-01T03:00:00.000Z',
      duration: 90,
    });
  });

  it('measures from a fixed start time when the policy has one', () => {
    const fixed = rollout({
      agentUpgradePolicy: {
        atLeastVersion: '2.0.0',
        start: '2026-12-01T02:03:00Z',
        duration: 600,
        action: 'install',
      },
    });
    expect(resumeWindow(fixed, at('2026-12-01T03:00:00.000Z')).duration).toBe(540);
  });

  it('measures from the last resume after a second pause', () => {
    const again = rollout({
      resumeWindow: { start: '2026-12-01T03:00:00.000Z', duration: 360 },
      stoppedAt: new Date('2026-12-01T03:01:00.000Z'),
    });
    expect(resumeWindow(again, at('2026-12-01T04:00:00.000Z')).duration).toBe(300);
  });

  it('spreads over the whole duration again when the window had run out, never all at once', () => {
    const late = rollout({ stoppedAt: new Date('2026-12-01T05:00:00.000Z') });
    expect(resumeWindow(late, at('2026-12-01T06:00:00.000Z')).duration).toBe(600);
  });

  it('measures a disabled policy, which has no pause time, up to the resume', () => {
    expect(resumeWindow(rollout({ stoppedAt: null }), at('2026-12-01T02:08:00.000Z')).duration).toBe(120);
  });
});
