/** Reading the JSON documents commands publish (`--file`). */
import { readFile } from 'node:fs/promises';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { CliError } from '../cli-errors';

/**
 * A JSON object from a file. `//` comments (as in the templates `careen … new` prints) are
 * ignored; a syntax error is reported at its line and column in the file as written.
 */
export async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const parsed: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  const [first] = errors;
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new CliError(`${file}:${line}:${column}: not valid JSON: ${describe(first, text)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliError(`${file} must hold a JSON object`);
  return parsed as Record<string, unknown>;
}

/** 1-based line and column of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastBreak };
}

function describe(error: ParseError, text: string): string {
  const found = text.slice(error.offset, error.offset + Math.max(1, error.length)).trim();
  const what = printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return found ? `${what} at "${found.slice(0, 20)}"` : `${what} at the end`;
}
