/** Reading the JSON documents commands publish (`--file`). */
import { readFile } from 'node:fs/promises';
import { CliError } from '../cli-errors';

/**
 * A JSON object from a file. Lines whose first non-blank characters are `//` are comments
 * (as in the templates `careen … new` prints) and are ignored.
 */
export async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const json = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliError(`${file} must hold a JSON object`);
  return parsed as Record<string, unknown>;
}
