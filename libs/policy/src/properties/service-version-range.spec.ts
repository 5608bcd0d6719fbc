import { satisfies } from 'semver';
import { toSemverRange } from './service-version-range';

describe('service version ranges', () => {
  it.each([
    ['[1.0.0,INFINITY)', '>=1.0.0'],
    ['(1.0.0,INFINITY)', '>1.0.0'],
    ['[1.0,2)', '>=1.0.0 <2.0.0'],
    [' ( 1.2.3 , 2.0.0 ] ', '>1.2.3 <=2.0.0'],
    ['[1.0.0,1.0.0]', '>=1.0.0 <=1.0.0'],
  ])('reads the Open Horizon interval %s as %s', (interval, range) => {
    expect(toSemverRange(interval)).toBe(range);
  });

  it('keeps a semver range as it is', () => {
    expect(toSemverRange('^1.2 || >=3.0.0')).toBe('^1.2 || >=3.0.0');
  });

  it('includes and excludes bounds as the brackets say', () => {
    const range = toSemverRange('(1.0.0,2.0.0]')!;
    expect(['1.0.0', '1.0.1', '2.0.0', '2.0.1'].map((version) => satisfies(version, range))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it.each([
    ['an interval no version lies in', '[2.0.0,1.0.0)'],
    ['an open interval of one version', '(1.0.0,1.0.0]'],
    ['a bound of four segments', '[1.0.0.1,INFINITY)'],
    ['INFINITY as the lower bound', '[INFINITY,2.0.0)'],
    ['a missing bracket', '[1.0.0,2.0.0'],
    ['words', 'latest'],
    ['nothing', '  '],
    ['too long a text', `>=1.0.0 ${'|| 1.0.0 '.repeat(40)}`],
  ])('refuses %s', (_what, text) => {
    expect(toSemverRange(text)).toBeUndefined();
  });
});
