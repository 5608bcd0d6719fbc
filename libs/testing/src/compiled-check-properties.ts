/**
 * Property tests of a DTO's compiled check (CompiledCheck in libs/contracts): the inputs they are
 * fed, values on both sides of every rule, and the property itself — whatever the compiled check
 * takes, the validation pipe's class-validator path takes too, as the same DTO, and the input is
 * left as it came.
 */
import fc from 'fast-check';

export type CheckedSource = 'query' | 'body';
type DtoClass = abstract new () => object;

/** The two ways a service judges a DTO: its compiled check, and class-validator alone. */
export interface CheckedPaths {
  /** The DTO made of `value` when the compiled check accepts it, else undefined. */
  compiled(metatype: DtoClass, source: CheckedSource, value: unknown): object | undefined;
  /** A validation pipe without compiled checks: the DTO made of `value`, or a rejection. */
  classValidator: { transform(value: unknown, metadata: { type: CheckedSource; metatype: never }): unknown };
}

/**
 * The property for a service's two paths: `checkedAlike(dto, source, inputs, runs)` checks each of
 * `inputs` both ways (see the module's notes) and answers how many the compiled check took, so
 * that a test can tell its inputs reached the fast path at all.
 */
export function compiledCheckProperty(paths: CheckedPaths) {
  return async function checkedAlike(
    metatype: DtoClass,
    source: CheckedSource,
    inputs: fc.Arbitrary<Record<string, unknown>>,
    numRuns: number,
  ): Promise<number> {
    const classValidatorVerdict = async (value: unknown): Promise<unknown> => {
      try {
        return await paths.classValidator.transform(value, { type: source, metatype: metatype as never });
      } catch {
        return 'refused';
      }
    };
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(inputs, async (value) => {
        const sent = structuredClone(value);
        const compiled = paths.compiled(metatype, source, value);
        expect(value).toEqual(sent);
        if (compiled === undefined) return;
        taken++;
        const reference = await classValidatorVerdict(value);
        expect(reference).not.toBe('refused');
        expect(compiled).toBeInstanceOf(metatype);
        expect(compiled).toEqual(reference);
      }),
      { numRuns },
    );
    return taken;
  };
}

/** Mostly `usual`, now and then `rare`. */
export const mostly = <T, U>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: rare, weight: 1 });

/** An object of some of `fields` (mostly all of them), and now and then a field no rule names. */
export function someOf(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const unknownField = mostly(fc.constant(undefined), fc.constantFrom('extra', '__proto__', 'constructor'));
  return fc
    .tuple(mostly(fc.record(fields), fc.record(fields, { requiredKeys: [] })), unknownField)
    .map(([record, unknown]) => (unknown ? { ...record, [unknown]: 'x' } : record));
}

/** Values of the wrong type for most fields. */
const awkward = fc.constantFrom<unknown>(null, true, 0, 1.5, [], {}, ['x'], '');

/** Mostly `values`, now and then a value of the wrong type. */
export const field = <T>(values: fc.Arbitrary<T>) => mostly(values, awkward);

const lengths = (max: number) => [0, 1, max - 1, max, max + 1];

/** Strings around `max` characters, some of them counted differently by UTF-16 and by code point. */
export const textAround = (max: number) =>
  mostly(
    fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constant('v'.repeat(max))),
    fc.oneof(
      fc.constantFrom(...lengths(max)).map((n) => 'v'.repeat(Math.max(n, 0))),
      fc.constantFrom(...lengths(max)).map((n) => '😀'.repeat(Math.max(n, 0))),
      fc.constantFrom(...lengths(max)).map((n) => `${'v'.repeat(Math.max(n - 1, 0))}\uFE0F`),
      fc.constantFrom('', '\uFE0F', '\uD800'),
      fc.string({ maxLength: max + 2 }),
    ),
  );

/** Identifiers (IDENTIFIER_PATTERN) and near misses. */
export const identifiers = mostly(
  fc.constantFrom('acme', 'a', 'A-1_b', 'a'.repeat(64)),
  fc.constantFrom('-a', 'a.b', 'é', 'a'.repeat(65), 'a\n', ''),
);

export const isoTimes = mostly(
  fc.constantFrom('2026-12-01T02:03:04Z', '2026-12-01T02:03:04.123+01:00', '2026-12-01'),
  fc.constantFrom('2026-02-30T00:00:00Z', '2026-12-01T25:00:00Z', '2026-12-01 02:03:04', 'not a time'),
);

/** A query string's whole numbers from 0 to `max`, and what only looks like one. */
export const queryNumbers = (max: number) =>
  mostly(
    fc.integer({ min: 0, max }).map(String),
    fc.oneof(
      fc.integer({ min: -5, max: 2_000 }).map(String),
      fc.constantFrom(
        '',
        ' ',
        ' 7',
        '7 ',
        '1e1',
        '1e400',
        '0x10',
        '1.0',
        '1.5',
        '-0',
        'Infinity',
        'NaN',
        'abc',
      ),
      fc.array(fc.constant('3'), { minLength: 2, maxLength: 2 }),
    ),
  );
