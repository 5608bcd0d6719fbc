/**
 * A YAML parser's error said on one line, whole: its message up to the excerpt it draws (which
 * needs several lines and a caret), then the offending line of the text quoted, so that a
 * client that shows one line still sees where and what.
 */
export function yamlErrorMessage(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const [first = ''] = message.split('\n');
  const line = (error as { linePos?: readonly { line: number }[] }).linePos?.[0]?.line;
  const offending = line === undefined ? undefined : text.split(/\r?\n/)[line - 1];
  const said = first.replace(/:\s*$/, '');
  return offending === undefined || offending.trim() === ''
    ? said
    : `${said}: ${JSON.stringify(offending.trim())}`;
}
