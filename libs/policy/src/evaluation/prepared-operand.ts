/**
 * The right-hand side of a comparison read ahead of time in every type a property could have,
 * so a compiled constraint reads its literals once, not once per node. Owns how a literal is
 * read as a number, version, boolean or string, and Open Horizon's reading of a quoted value
 * with commas (`"a,b"`) as also matching each of its parts.
 */
import { type VersionInterval, parseVersion } from '../properties/version';
import { type VersionParts } from '../properties/property.types';
import { type ComparisonValue, type RangeBound, type ScalarValue } from '../constraints/constraint.ast';
import { isNumberText } from '../constraints/constraint-words';

export interface NumberBound {
  readonly value: number;
  readonly inclusive: boolean;
}

export interface PreparedOperand {
  /** Every candidate as text (numbers as written, booleans as `true`/`false`). */
  readonly strings: ReadonlySet<string>;
  /** Candidates that read as numbers, versions and booleans; an empty array means none does. */
  readonly numbers: readonly number[];
  readonly versions: readonly VersionParts[];
  readonly booleans: readonly boolean[];
  /** The operand as one value, for ordering operators and `in` with one version. */
  readonly wholeNumber: number | undefined;
  readonly wholeVersion: VersionParts | undefined;
  /** Set when the operand is a range. */
  readonly interval: VersionInterval | undefined;
  /** The range read numerically, when both bounds are plain numbers (for int and float properties). */
  readonly numberInterval: { readonly lower: NumberBound; readonly upper: NumberBound | null } | undefined;
}

function scalarText(value: ScalarValue): string {
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'number':
      return value.text;
    case 'boolean':
      return String(value.value);
  }
}

function readNumber(value: ScalarValue): number | undefined {
  switch (value.kind) {
    case 'number':
      return value.value;
    case 'string':
      return isNumberText(value.value.trim()) ? Number(value.value.trim()) : undefined;
    case 'boolean':
      return undefined;
  }
}

function readVersion(value: ScalarValue): VersionParts | undefined {
  return value.kind === 'boolean' ? undefined : parseVersion(scalarText(value).trim());
}

function readBoolean(value: ScalarValue): boolean | undefined {
  switch (value.kind) {
    case 'boolean':
      return value.value;
    case 'string': {
      const text = value.value.trim().toLowerCase();
      return text === 'true' ? true : text === 'false' ? false : undefined;
    }
    case 'number':
      return undefined;
  }
}

/** A quoted `"a,b"` stands for itself and for `a` and `b`, as Open Horizon reads it. */
function expand(value: ScalarValue): ScalarValue[] {
  if (value.kind !== 'string' || !value.value.includes(',')) return [value];
  const parts = value.value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part): ScalarValue => ({ kind: 'string', value: part }));
  return [value, ...parts];
}

function defined<T>(items: readonly (T | undefined)[]): T[] {
  return items.filter((item): item is T => item !== undefined);
}

function numberBound(bound: RangeBound): NumberBound | undefined {
  return isNumberText(bound.version)
    ? { value: Number(bound.version), inclusive: bound.inclusive }
    : undefined;
}

export function prepareOperand(value: ComparisonValue): PreparedOperand {
  if (value.kind === 'range') {
    const versionBound = (bound: RangeBound) => ({
      parts: parseVersion(bound.version) ?? [],
      inclusive: bound.inclusive,
    });
    const lower = numberBound(value.lower);
    const upper = value.upper === null ? null : numberBound(value.upper);
    return {
      strings: new Set(),
      numbers: [],
      versions: [],
      booleans: [],
      wholeNumber: undefined,
      wholeVersion: undefined,
      interval: {
        lower: versionBound(value.lower),
        upper: value.upper === null ? null : versionBound(value.upper),
      },
      numberInterval: lower !== undefined && upper !== undefined ? { lower, upper } : undefined,
    };
  }
  const written = value.kind === 'list' ? value.items : [value];
  const candidates = written.flatMap(expand);
  const whole = value.kind === 'list' ? undefined : value;
  return {
    strings: new Set(candidates.map(scalarText)),
    numbers: defined(candidates.map(readNumber)),
    versions: defined(candidates.map(readVersion)),
    booleans: defined(candidates.map(readBoolean)),
    wholeNumber: whole === undefined ? undefined : readNumber(whole),
    wholeVersion: whole === undefined ? undefined : readVersion(whole),
    interval: undefined,
    numberInterval: undefined,
  };
}
