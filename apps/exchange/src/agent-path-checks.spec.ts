/**
 * The compiled checks of the agent path's DTOs never accept what their class-validator rules
 * refuse, and take what agents send: for inputs made of values on both sides of every rule,
 * whatever the compiled check accepts, the validation pipe's class-validator path accepts too,
 * as the same DTO.
 */
import { MANAGEMENT_STATUSES } from '@careen/contracts';
import { checkCompiled, createValidationPipe, type CheckedSource } from '@careen/service';
import fc from 'fast-check';
import { ChangeQueryDto } from './changes/dto/change-query.dto';
import { ManagementStatusDto } from './management-status/dto/management-status.dto';
import { NodeStatusDto } from './nodes/dto/node-status.dto';

const classValidatorOnly = createValidationPipe({ compiledChecks: false });

/** The DTO class-validator makes of `value`, or `refused`. */
async function classValidatorVerdict(
  metatype: object,
  source: CheckedSource,
  value: unknown,
): Promise<unknown> {
  try {
    return await classValidatorOnly.transform(value, { type: source, metatype: metatype as never });
  } catch {
    return 'refused';
  }
}

/**
 * Checks each of `inputs` both ways: whatever the compiled check takes, class-validator takes
 * too, as the same DTO, and the input is left as it came. Answers how many the compiled check took.
 */
async function checkedAlike(
  metatype: abstract new () => object,
  source: CheckedSource,
  inputs: fc.Arbitrary<Record<string, unknown>>,
  numRuns: number,
): Promise<number> {
  let taken = 0;
  await fc.assert(
    fc.asyncProperty(inputs, async (value) => {
      const sent = structuredClone(value);
      const compiled = checkCompiled(metatype, source, value);
      expect(value).toEqual(sent);
      if (compiled === undefined) return;
      taken++;
      const reference = await classValidatorVerdict(metatype, source, value);
      expect(reference).not.toBe('refused');
      expect(compiled).toBeInstanceOf(metatype);
      expect(compiled).toEqual(reference);
    }),
    { numRuns },
  );
  return taken;
}

/** Mostly `usual`, now and then `rare`. */
const mostly = <T, U>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: rare, weight: 1 });

/** An object of some of `fields` (mostly all of them), and now and then a field no rule names. */
function someOf(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const unknownField = mostly(fc.constant(undefined), fc.constantFrom('extra', '__proto__', 'constructor'));
  return fc
    .tuple(mostly(fc.record(fields), fc.record(fields, { requiredKeys: [] })), unknownField)
    .map(([record, unknown]) => (unknown ? { ...record, [unknown]: 'x' } : record));
}

const awkward = fc.constantFrom<unknown>(null, true, 0, 1.5, [], {}, ['x'], '');
const lengths = (max: number) => [0, 1, max - 1, max, max + 1];
/** Strings around `max` characters, some of them counted differently by UTF-16 and by code point. */
const textAround = (max: number) =>
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
const identifiers = mostly(
  fc.constantFrom('acme', 'a', 'A-1_b', 'a'.repeat(64)),
  fc.constantFrom('-a', 'a.b', 'é', 'a'.repeat(65), 'a\n', ''),
);
const times = mostly(
  fc.constantFrom('2026-12-01T02:03:04Z', '2026-12-01T02:03:04.123+01:00', '2026-12-01'),
  fc.constantFrom('2026-02-30T00:00:00Z', '2026-12-01T25:00:00Z', '2026-12-01 02:03:04', 'not a time'),
);
const field = <T>(values: fc.Arbitrary<T>) => mostly(values, awkward);

describe('compiled checks of the agent path', () => {
  it("a poll's query: taken only as class-validator takes it, numbers converted alike", async () => {
    const numbers = mostly(
      fc.integer({ min: 0, max: 120 }).map(String),
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
    const query = someOf({ since: numbers, wait: numbers, limit: numbers });
    expect(await checkedAlike(ChangeQueryDto, 'query', query, 1_500)).toBeGreaterThan(100);
    expect(checkCompiled(ChangeQueryDto, 'query', { since: '42', wait: '30' })).toEqual({
      since: 42,
      wait: 30,
      limit: 100,
    });
  });

  it('a status report: taken only as class-validator takes it', async () => {
    const agentVersion = someOf({
      package: field(textAround(64)),
      failed: field(textAround(64)),
      upgradeStart: field(times),
      upgradeEnd: field(times),
    });
    const workload = someOf({
      deploymentPolicy: field(identifiers),
      service: field(
        someOf({ org: field(identifiers), url: field(textAround(256)), version: field(textAround(64)) }),
      ),
      state: field(textAround(64)),
    });
    const report = someOf({
      agentVersion: field(agentVersion),
      workloads: field(fc.array(field(workload), { maxLength: 3 })),
    });
    expect(await checkedAlike(NodeStatusDto, 'body', report, 4_000)).toBeGreaterThan(100);
  });

  it('a management status: taken only as class-validator takes it', async () => {
    const statuses = mostly(fc.constantFrom(...MANAGEMENT_STATUSES), fc.constantFrom('Waiting', 'done', ''));
    const body = someOf({
      status: field(statuses),
      version: field(textAround(64)),
      fromVersion: field(textAround(64)),
      startTime: field(times),
      endTime: field(times),
      error: field(textAround(4000)),
    });
    expect(await checkedAlike(ManagementStatusDto, 'body', body, 1_500)).toBeGreaterThan(100);
  });

  it('what an agent sends takes the compiled path', () => {
    const workloads = [
      { deploymentPolicy: 'gw', service: { org: 'acme', url: 'acme.gw', version: '1.0.0' } },
    ];
    expect(checkCompiled(NodeStatusDto, 'body', { agentVersion: { package: '2.0.0' }, workloads })).toEqual({
      agentVersion: { package: '2.0.0' },
      workloads,
    });
    const step = {
      status: 'downloading',
      version: '2.0.0',
      fromVersion: '1.0.0',
      startTime: '2026-12-01T02:03:04.000Z',
    };
    expect(checkCompiled(ManagementStatusDto, 'body', step)).toEqual(step);
  });
});
