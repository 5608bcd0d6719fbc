import { ifRangeHolds, resolveRange } from './http-range';

describe('HTTP byte ranges', () => {
  const size = 1000;

  it.each([
    ['bytes=0-499', { kind: 'partial', start: 0, end: 499 }],
    ['bytes=500-', { kind: 'partial', start: 500, end: 999 }],
    ['bytes=-100', { kind: 'partial', start: 900, end: 999 }],
    ['bytes=-5000', { kind: 'partial', start: 0, end: 999 }],
    ['bytes=900-5000', { kind: 'partial', start: 900, end: 999 }],
    ['bytes=999-999', { kind: 'partial', start: 999, end: 999 }],
  ])('serves %s as a partial range', (header, expected) => {
    expect(resolveRange(header, size)).toEqual(expected);
  });

  it.each(['bytes=1000-', 'bytes=1000-1200', 'bytes=-0'])('finds %s unsatisfiable', (header) => {
    expect(resolveRange(header, size)).toEqual({ kind: 'unsatisfiable' });
  });

  it.each([undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=5-2', 'bytes=-', 'bytes=a-b'])(
    'ignores %s and serves the whole package',
    (header) => {
      expect(resolveRange(header, size)).toEqual({ kind: 'whole' });
    },
  );

  it('applies a range only when If-Range is absent or names the current ETag', () => {
    expect(ifRangeHolds(undefined, '"abc"')).toBe(true);
    expect(ifRangeHolds('"abc"', '"abc"')).toBe(true);
    expect(ifRangeHolds('"old"', '"abc"')).toBe(false);
    expect(ifRangeHolds('Sun, 22 Nov 2026 00:00:00 GMT', '"abc"')).toBe(false);
  });
});
