/**
 * Prometheus label matchers, as alert filters write them: `alertname="NodeDown"`,
 * `severity=~"page|critical"`, `team!="dev"`, `env!~"lab.*"`. Regular expressions are fully
 * anchored, as Prometheus's are; a missing label matches as the empty string.
 */
export interface AlertMatcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
  /** The anchored expression, for `=~` and `!~`. */
  pattern?: RegExp;
}

const MATCHER = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|([^"\s]*))\s*$/;

/** The matcher `text` writes, or a problem naming what is wrong with it. */
export function parseMatcher(text: string): AlertMatcher | { problem: string } {
  const match = MATCHER.exec(text);
  if (!match)
    return {
      problem: `"${text}" is not a label matcher such as alertname="NodeDown" or severity=~"page|critical"`,
    };
  const [, label, op, quoted, bare] = match as unknown as [
    string,
    string,
    AlertMatcher['op'],
    string | undefined,
    string | undefined,
  ];
  const value = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (bare ?? '');
  if (op === '=~' || op === '!~') {
    try {
      return { label, op, value, pattern: new RegExp(`^(?:${value})$`) };
    } catch (error) {
      return { problem: `"${text}": ${(error as Error).message}` };
    }
  }
  return { label, op, value };
}

/** Whether every matcher accepts the alert's labels. */
export function matchesAll(
  matchers: readonly AlertMatcher[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return matchers.every((matcher) => {
    const value = labels[matcher.label] ?? '';
    switch (matcher.op) {
      case '=':
        return value === matcher.value;
      case '!=':
        return value !== matcher.value;
      case '=~':
        return matcher.pattern!.test(value);
      case '!~':
        return !matcher.pattern!.test(value);
    }
  });
}
