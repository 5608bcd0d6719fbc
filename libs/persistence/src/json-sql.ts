/**
 * JSON built by Postgres in the statement that writes what it describes, for an outbox row
 * written by that same statement: the payload of a change then needs no read of its own.
 */

/**
 * A time as JavaScript's toISOString() writes it: milliseconds, truncated as node-postgres
 * truncates a stored time's microseconds when it reads one.
 */
export const isoTime = (expression: string): string =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A JSON object of the given fields, each value an SQL expression. Typed as a map of every
 * field of the answer class it stands for, a field added to the class is missed at compile time.
 */
export function jsonObject(fields: Record<string, string>): string {
  return `jsonb_build_object(${Object.entries(fields)
    .map(([field, value]) => `'${field}', ${value}`)
    .join(', ')})`;
}

/** The fields of `T`, each as the SQL expression that writes it. */
export type SqlFields<T> = { [K in keyof T]-?: string };
