import { SimulatedInstallStrategy } from './simulated-install.strategy';

async function upgrade(strategy: SimulatedInstallStrategy, version: string, previous: string) {
  await strategy.install(version);
  await strategy.activate(version);
  try {
    await strategy.healthCheck(version);
    return 'successful';
  } catch {
    await strategy.activate(previous);
    return strategy.healthCheck(previous).then(
      () => 'rolled-back',
      () => 'rollback-failed',
    );
  }
}

describe('SimulatedInstallStrategy', () => {
  it('fails the new version only: the rollback to the version it ran comes up', async () => {
    const strategy = new SimulatedInstallStrategy('1.0.0', (version) => version !== '1.0.0');
    expect(await upgrade(strategy, '2.0.0', '1.0.0')).toBe('rolled-back');
    expect(await strategy.activeVersion()).toBe('1.0.0');
  });

  it('fails the rollback too when told to', async () => {
    const strategy = new SimulatedInstallStrategy(
      '1.0.0',
      () => true,
      undefined,
      () => true,
    );
    expect(await upgrade(strategy, '2.0.0', '1.0.0')).toBe('rollback-failed');
  });

  it('keeps a version that once passed healthy, and passes a later good one', async () => {
    const strategy = new SimulatedInstallStrategy('1.0.0', (version) => version === '3.0.0');
    expect(await upgrade(strategy, '2.0.0', '1.0.0')).toBe('successful');
    expect(await upgrade(strategy, '3.0.0', '2.0.0')).toBe('rolled-back');
    expect(await upgrade(strategy, '3.1.0', '2.0.0')).toBe('successful');
  });
});
