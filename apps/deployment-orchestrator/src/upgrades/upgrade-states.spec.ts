import { isDowngrade, upgradeOutcome } from './upgrade-states';

describe('single-node upgrade outcomes', () => {
  it('is a success only once the node reports the asked version', () => {
    expect(upgradeOutcome('successful', '2.0.0', '2.0.0')).toEqual({ state: 'success', error: null });
    expect(upgradeOutcome('no-action-required', '2.0.0', '2.0.0')).toEqual({ state: 'success', error: null });
  });

  it("waits for the node's own report after a successful install", () => {
    expect(upgradeOutcome('successful', '2.0.0', '1.0.0')).toEqual({ state: 'installing', error: null });
  });

  it('fails an upgrade the agent found nothing to do for on a node above the asked version', () => {
    expect(upgradeOutcome('no-action-required', '1.0.0', '2.0.0')).toEqual({
      state: 'failed',
      error:
        'the node stayed at 2.0.0: its agent answered no-action-required for 1.0.0, as agents go below the version they run only when a downgrade is allowed',
    });
  });

  it('counts an allowed downgrade a success once the node runs the lower version', () => {
    expect(upgradeOutcome('successful', '1.0.0', '2.0.0', true)).toEqual({
      state: 'installing',
      error: null,
    });
    expect(upgradeOutcome('successful', '1.0.0', '1.0.0', true)).toEqual({ state: 'success', error: null });
  });

  it('blames an agent that stayed above an allowed downgrade', () => {
    expect(upgradeOutcome('no-action-required', '1.0.0', '2.0.0', true)).toEqual({
      state: 'failed',
      error:
        'the node stayed at 2.0.0: its agent answered no-action-required for 1.0.0, though a downgrade was allowed: its agent does not go below the version it runs (it predates allowDowngrade)',
    });
  });

  it('says why without blaming a downgrade when the node runs a lower version', () => {
    expect(upgradeOutcome('no-action-required', '2.0.0', '1.0.0')).toEqual({
      state: 'failed',
      error:
        'the node stayed at 1.0.0: its agent answered no-action-required for 2.0.0, though the node runs another version',
    });
  });

  it('follows the other statuses as they are', () => {
    expect(upgradeOutcome('ha-waiting', '2.0.0', null).state).toBe('installing');
    expect(upgradeOutcome('rolled-back', '2.0.0', null).state).toBe('rolled-back');
  });

  it('judges a downgrade only between known versions', () => {
    expect(isDowngrade('2.0.0', '1.0.0')).toBe(true);
    expect(isDowngrade('2.0.0', '2.0.0')).toBe(false);
    expect(isDowngrade(null, '1.0.0')).toBe(false);
    expect(isDowngrade('dev-build', '1.0.0')).toBe(false);
    expect(isDowngrade('2.0.0', 'dev-build')).toBe(false);
  });
});
