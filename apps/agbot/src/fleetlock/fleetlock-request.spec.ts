import { loadConfig } from '@careen/service';
import { AgbotConfig } from '../agbot.config';
import { assertFleetLockHeader, expectedFleetLockGroup, parseFleetLockBody } from './fleetlock-request';
import { FleetLockError } from './fleetlock.errors';
import { NetworkList } from '@careen/service';

function kindOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof FleetLockError ? `${error.status} ${error.kind}` : String(error);
  }
}

describe('FleetLock requests', () => {
  it('needs the header with the value true', () => {
    expect(kindOf(() => assertFleetLockHeader('true'))).toBeUndefined();
    expect(kindOf(() => assertFleetLockHeader(undefined))).toBe('400 missing_fleetlock_header');
    expect(kindOf(() => assertFleetLockHeader('TRUE'))).toBe('400 missing_fleetlock_header');
    expect(kindOf(() => assertFleetLockHeader(['true', 'true']))).toBe('400 missing_fleetlock_header');
  });

  it('reads client_params and ignores fields it does not know', () => {
    expect(parseFleetLockBody({ client_params: { id: 'n-1', group: 'db.tier-1', x: 1 }, y: 2 })).toEqual({
      id: 'n-1',
      group: 'db.tier-1',
    });
  });

  it.each([
    [null],
    [[]],
    ['x'],
    [{}],
    [{ client_params: [] }],
    [{ client_params: { id: 'n', group: '' } }],
    [{ client_params: { id: '', group: 'g' } }],
    [{ client_params: { id: 'n', group: 'a_b' } }],
    [{ client_params: { id: 'n.1', group: 'g' } }],
    [{ client_params: { id: 1, group: 'g' } }],
  ])('refuses %j as invalid_client_params', (body) => {
    expect(kindOf(() => parseFleetLockBody(body))).toBe('400 invalid_client_params');
  });

  it('expects a node outside any HA group under the default group', () => {
    expect(expectedFleetLockGroup(null)).toBe('default');
    expect(expectedFleetLockGroup('db')).toBe('db');
  });
});

describe('NetworkList', () => {
  it('matches IPv4, IPv6 and IPv4 seen on a dual-stack socket', () => {
    const trusted = NetworkList.parse('127.0.0.0/8, 10.1.0.0/16,::1/128');
    expect(trusted.includes('127.0.0.1')).toBe(true);
    expect(trusted.includes('::ffff:127.0.0.1')).toBe(true);
    expect(trusted.includes('10.1.200.3')).toBe(true);
    expect(trusted.includes('10.2.0.1')).toBe(false);
    expect(trusted.includes('::1')).toBe(true);
    expect(trusted.includes('fe80::1')).toBe(false);
    expect(trusted.includes(undefined)).toBe(false);
    expect(trusted.includes('not-an-ip')).toBe(false);
  });

  it('trusts nothing when empty and names a bad entry', () => {
    expect(NetworkList.parse('').includes('127.0.0.1')).toBe(false);
    expect(() => NetworkList.parse('10.0.0.0/8,10.0.0.1')).toThrow('"10.0.0.1" is not a CIDR');
    expect(() => NetworkList.parse('10.0.0.0/33')).toThrow('is not a CIDR');
  });
});

describe('CAREEN_FLEETLOCK_TRUSTED_NETWORKS', () => {
  const base = {
    CAREEN_DATABASE_URL: 'postgres://x@y/z',
    CAREEN_NATS_URL: 'nats://n:4222',
    CAREEN_EXCHANGE_URL: 'http://e:8080',
  };

  it('defaults to loopback and stops the agbot naming a bad entry', () => {
    expect(loadConfig(AgbotConfig, base).CAREEN_FLEETLOCK_TRUSTED_NETWORKS).toBe('127.0.0.0/8,::1/128');
    expect(() =>
      loadConfig(AgbotConfig, { ...base, CAREEN_FLEETLOCK_TRUSTED_NETWORKS: '10.0.0.0/8,10.0.0.1' }),
    ).toThrow(/CAREEN_FLEETLOCK_TRUSTED_NETWORKS.*"10\.0\.0\.1" is not a CIDR/);
  });
});
