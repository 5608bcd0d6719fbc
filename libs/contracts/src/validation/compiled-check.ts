/**
 * A class that is checked over and over — a request DTO every agent sends (a poll's query, a
 * status report), a bus payload every change carries — may also carry a JSON schema of its
 * rules, which Ajv compiles once into a single function. The validation pipe and the bus's
 * message decoder ask that function first: a value it accepts is taken as it stands, without
 * class-transformer and class-validator walking the class's metadata; any other is handed to
 * class-validator, which names its problems as for every other class. The schema must therefore
 * never accept what the class's decorators refuse — it may refuse more, which only costs the slow
 * path — and a test of each such class holds the two to that.
 *
 * Besides JSON Schema's own keywords, a schema may use the class-validator checks themselves
 * where JSON Schema counts or parses differently: `minChars` and `maxChars` (class-validator's
 * MinLength and MaxLength, which count neither half of a surrogate pair nor a variation
 * selector), `format: 'iso8601'` (IsISO8601 with `strict`) and `finite`, which refuses the
 * infinities JSON Schema's `integer` and its ranges let through (class-validator's IsInt does not).
 */
import Ajv, { type AnySchema, type ValidateFunction } from 'ajv';
import { isISO8601, maxLength, minLength } from 'class-validator';

/** Where a DTO comes from: query strings are converted to the schema's types, bodies are not. */
export type CheckedSource = 'query' | 'body';

type DtoClass = abstract new (...args: never[]) => object;

function ajvFor(source: CheckedSource): Ajv {
  const ajv = new Ajv({
    coerceTypes: source === 'query',
    // A pattern is read as class-validator's Matches reads the same RegExp: without the `u` flag.
    unicodeRegExp: false,
    allowUnionTypes: true,
  });
  ajv.addKeyword({ keyword: 'minChars', type: 'string', schemaType: 'number', validate: charsAtLeast });
  ajv.addKeyword({ keyword: 'maxChars', type: 'string', schemaType: 'number', validate: charsAtMost });
  // Not limited to numbers: Ajv would then judge a query's string before converting it.
  ajv.addKeyword({ keyword: 'finite', schemaType: 'boolean', validate: isFiniteNumber });
  ajv.addFormat('iso8601', { type: 'string', validate: (text: string) => isISO8601(text, { strict: true }) });
  return ajv;
}

function isFiniteNumber(finite: boolean, value: unknown): boolean {
  return Number.isFinite(value) === finite;
}

function charsAtLeast(min: number, text: string): boolean {
  return minLength(text, min);
}

function charsAtMost(max: number, text: string): boolean {
  return maxLength(text, max);
}

const compilers: Record<CheckedSource, Ajv | undefined> = { query: undefined, body: undefined };
/** Each decorated DTO's schema and, once first asked for, its check per source. */
const checks = new WeakMap<
  object,
  { schema: AnySchema; compiled: Partial<Record<CheckedSource, ValidateFunction>> }
>();

/** Gives the decorated DTO a compiled check of `schema` (see the module's notes). */
export function CompiledCheck(schema: AnySchema): ClassDecorator {
  return (target) => {
    checks.set(target, { schema, compiled: {} });
  };
}

/**
 * The DTO made from `value` when the compiled check of `metatype` accepts it, else undefined
 * (no compiled check, or a value for class-validator to judge). `value` itself is left as it
 * came, so that class-validator sees what was sent.
 */
export function checkCompiled(metatype: DtoClass, source: CheckedSource, value: unknown): object | undefined {
  const check = compiledCheckOf(metatype, source);
  if (!check) return undefined;
  // Converting a query's strings changes the object checked: check a copy (a query is flat).
  const candidate = source === 'query' ? { ...(value as object) } : value;
  if (!check(candidate)) return undefined;
  return Object.assign(Reflect.construct(metatype, []) as object, candidate);
}

/**
 * Compiles the check of `metatype` now, when it has one: Ajv takes about a tenth of a second
 * for the first, which a consumer pays at its start rather than on its first message.
 */
export function prepareCompiledCheck(metatype: DtoClass, source: CheckedSource): void {
  compiledCheckOf(metatype, source);
}

function compiledCheckOf(metatype: DtoClass, source: CheckedSource): ValidateFunction | undefined {
  const entry = checks.get(metatype);
  if (!entry) return undefined;
  return (entry.compiled[source] ??= (compilers[source] ??= ajvFor(source)).compile(entry.schema));
}
