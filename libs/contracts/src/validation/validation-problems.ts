/**
 * What is wrong with a value measured against a contract class, said once for every reader of
 * the wire (the bus, the agent, the change contracts): each problem with its dotted path.
 */
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

export function describeValidationErrors(errors: readonly ValidationError[], prefix = ''): string {
  return errors
    .flatMap((error) => {
      const path = prefix ? `${prefix}.${error.property}` : error.property;
      const own = Object.values(error.constraints ?? {}).map((message) => `${path}: ${message}`);
      const nested = error.children?.length ? [describeValidationErrors(error.children, path)] : [];
      return [...own, ...nested];
    })
    .join('; ');
}

/** Why `value` breaks the contract of `contract` (fields it does not name pass), or undefined. */
export function contractProblems(contract: new () => object, value: object): string | undefined {
  const errors = validateSync(plainToInstance(contract, value), { forbidUnknownValues: true });
  return errors.length > 0 ? describeValidationErrors(errors) : undefined;
}

/** One field of a request that does not validate, with everything wrong with it. */
export interface FieldProblem {
  field: string;
  problems: string[];
}

/**
 * Problems found one at a time, each with its path, as the fields an error answer lists: one
 * entry per path, in the order first found. A problem of the whole document has the path "".
 */
export function fieldsOf(problems: readonly { path: string; problem: string }[]): FieldProblem[] {
  const fields = new Map<string, string[]>();
  for (const { path, problem } of problems) fields.set(path, [...(fields.get(path) ?? []), problem]);
  return [...fields].map(([field, each]) => ({ field, problems: each }));
}
