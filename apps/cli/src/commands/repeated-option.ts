/** Option parsers for options given more than once: each value kept, in order. */

/** `--x a --x b` → [a, b]. */
export function repeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--x a,b --x c` → [a, b, c]: each value split at commas, blanks dropped. */
export function commaSeparated(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((each) => each.trim())
      .filter(Boolean),
  ];
}
