import { compareVersions, isEmptyInterval, isVersion, parseVersion, versionInInterval } from './version';

/** mulberry32: a small seeded generator, so every run checks the same cases. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('versions', () => {
  it.each(['1', '1.2', '1.2.3', '0.0.1', '10.200.3000', '1.2.3.4'])('accepts %s', (text) => {
    expect(isVersion(text)).toBe(true);
  });

  it.each(['', 'v1', '1.', '.1', '1..2', '1.2-beta', '-1', '1.2.x', ' 1.2'])('rejects %j', (text) => {
    expect(isVersion(text)).toBe(false);
  });

  it.each<[string, string, number]>([
    ['1.2.3', '1.2.3', 0],
    ['1.2', '1.2.0', 0],
    ['1', '1.0.0.0', 0],
    ['1.10', '1.9', 1],
    ['1.2.10', '1.2.9', 1],
    ['2', '1.99.99', 1],
    ['1.01', '1.1', 0],
    ['0.9', '1.0', -1],
    ['1.2.3', '1.2.3.1', -1],
  ])('compares %s with %s as %i', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
    expect(compareVersions(b, a)).toBe(-expected || 0);
  });

  it('refuses to compare a string that is not a version', () => {
    expect(() => compareVersions('1.0', 'latest')).toThrow('"latest" is not a version');
  });

  it('knows an empty interval from a single-version one', () => {
    const bound = (text: string, inclusive: boolean) => ({ parts: parseVersion(text) ?? [], inclusive });
    expect(isEmptyInterval({ lower: bound('1.0', true), upper: bound('1', true) })).toBe(false);
    expect(isEmptyInterval({ lower: bound('1.0', true), upper: bound('1', false) })).toBe(true);
    expect(isEmptyInterval({ lower: bound('2', true), upper: null })).toBe(false);
    expect(
      versionInInterval(parseVersion('1.0.0') ?? [], { lower: bound('1', true), upper: bound('1.0', true) }),
    ).toBe(true);
  });

  describe('ordering, on random versions', () => {
    const random = seededRandom(20240611);
    const randomVersion = (): string => {
      const segments = 1 + Math.floor(random() * 4);
      return Array.from({ length: segments }, () =>
        String(Math.floor(random() * (random() < 0.3 ? 3 : 120))),
      ).join('.');
    };
    const versions = Array.from({ length: 150 }, randomVersion);
    const pickVersion = (): string => {
      const version = versions[Math.floor(random() * versions.length)];
      if (version === undefined) throw new Error('there are no versions to pick from');
      return version;
    };
    // The reference order: numbers segment by segment, missing segments read as 0.
    const reference = (a: string, b: string): number => {
      const x = a.split('.').map(Number);
      const y = b.split('.').map(Number);
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1;
      }
      return 0;
    };

    it('agrees with segment-wise numeric comparison and is antisymmetric', () => {
      for (const a of versions) {
        for (const b of versions) {
          expect(compareVersions(a, b)).toBe(reference(a, b));
          expect(Math.sign(compareVersions(a, b)) + Math.sign(compareVersions(b, a))).toBe(0);
        }
      }
    });

    it('is transitive, so sorting gives one consistent chain', () => {
      const sorted = [...versions].sort(compareVersions);
      let earlier: string | undefined;
      for (const later of sorted) {
        if (earlier !== undefined) expect(compareVersions(earlier, later)).toBeLessThanOrEqual(0);
        earlier = later;
      }
      for (let n = 0; n < 2000; n++) {
        const [a, b, c] = [pickVersion(), pickVersion(), pickVersion()];
        if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0)
          expect(compareVersions(a, c)).toBeLessThanOrEqual(0);
      }
    });

    it('treats versions that differ only by trailing zeros as equal', () => {
      for (const version of versions) {
        expect(compareVersions(version, `${version}.0.0`)).toBe(0);
      }
    });
  });
});
