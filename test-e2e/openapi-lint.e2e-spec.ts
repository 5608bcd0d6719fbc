/**
 * Every hub service's OpenAPI document, as the service serves it, linted with `redocly lint`
 * and Redocly's recommended rules (redocly.yaml): no error and no warning but those
 * .redocly.lint-ignore.yaml names, each with why. The documents are written to
 * .careen/openapi/, where they can be read after a run. A copy broken on
 * purpose (an operation that loses its security and its success answer) is reported, so the
 * lint is known to look.
 */
import { http, useTestInfra } from '@careen/testing';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startAllServices } from './support/all-services';

const REPO = resolve(__dirname, '..');

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/** What `redocly lint` finds in `file`, said one line each. */
async function lintFile(file: string): Promise<string[]> {
  const run = await promisify(execFile)(
    join(REPO, 'node_modules', '.bin', 'redocly'),
    ['lint', file, '--config', join(REPO, 'redocly.yaml'), '--format', 'json'],
    {
      cwd: REPO,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    },
    // It exits 1 when it finds an error, with its report all the same.
  ).catch((failed: { stdout: string }) => failed);
  return (JSON.parse(run.stdout) as { problems: Problem[] }).problems.map(
    (problem) =>
      `${basename(file)} ${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
  );
}

/** What `redocly lint` finds in `files`. */
async function lint(files: string[]): Promise<string[]> {
  return (await Promise.all(files.map(lintFile))).flat();
}

describe('the OpenAPI documents, linted', () => {
  const infra = useTestInfra();
  // Where .redocly.lint-ignore.yaml expects them.
  const folder = join(REPO, '.careen', 'openapi');
  const documents: Record<string, { paths: Record<string, Record<string, Record<string, unknown>>> }> = {};

  beforeAll(async () => {
    mkdirSync(folder, { recursive: true });
    for (const [name, url] of Object.entries(await startAllServices(infra))) {
      documents[name] = (await http(url, 'GET', '/docs/openapi.json')).body;
      writeFileSync(join(folder, `${name}.json`), JSON.stringify(documents[name]));
    }
  }, 120_000);

  it('finds nothing in any service document', async () => {
    expect(Object.keys(documents)).toHaveLength(5);
    expect(await lint(Object.keys(documents).map((name) => join(folder, `${name}.json`)))).toEqual([]);
  });

  it('reports a copy broken on purpose', async () => {
    const broken = structuredClone(documents.exchange!);
    const operation = broken.paths['/v1/orgs/{org}/nodes']!.get!;
    delete operation.security;
    operation.responses = { 404: { description: 'nothing' } };
    const file = join(folder, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));

    const problems = await lint([file]);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^broken.json error security-defined #\/paths\/~1v1~1orgs~1\{org\}~1nodes\/get/,
        ),
        expect.stringMatching(
          /^broken.json warn operation-2xx-response #\/paths\/~1v1~1orgs~1\{org\}~1nodes\/get/,
        ),
      ]),
    );
  });
});
