/**
 * The typed clients in libs/api-client/src/generated are what openapi-typescript makes of the
 * services' documents as they serve them now: a route, parameter or answer that changes without
 * the client being made again fails here. `npm run api-client` makes them again.
 */
import { useTestInfra, http } from '@careen/testing';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startAllServices } from './support/all-services';

const REPO = resolve(__dirname, '..');
const GENERATED = join(REPO, 'libs', 'api-client', 'src', 'generated');
const DOCUMENTS = join(REPO, '.careen', 'api-client');
const WRITE = process.env.CAREEN_WRITE_API_CLIENT === '1';

/**
 * What openapi-typescript makes of `document`, formatted as the repository is. Both tools are
 * run as their commands: they load ES modules, which jest's module system cannot.
 */
async function clientOf(service: string, document: object): Promise<string> {
  mkdirSync(DOCUMENTS, { recursive: true });
  const input = join(DOCUMENTS, `${service}.json`);
  writeFileSync(input, JSON.stringify(document));
  const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);
  const { stdout } = await promisify(execFile)(
    bin('openapi-typescript'),
    // A field with a default may still be left out of a request.
    [input, '--default-non-nullable', 'false'],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return execFileSync(bin('prettier'), ['--stdin-filepath', join(GENERATED, `${service}.ts`)], {
    input: stdout,
    encoding: 'utf8',
  });
}

describe('the generated API clients', () => {
  const infra = useTestInfra();

  it(
    WRITE ? 'are made again' : 'match the documents the services serve',
    async () => {
      const stale: string[] = [];
      for (const [service, url] of Object.entries(await startAllServices(infra))) {
        const made = await clientOf(service, (await http(url, 'GET', '/docs/openapi.json')).body);
        const file = join(GENERATED, `${service}.ts`);
        if (WRITE) writeFileSync(file, made);
        else if (!existsSync(file) || readFileSync(file, 'utf8') !== made) stale.push(service);
      }
      expect({ stale, remedy: 'npm run api-client' }).toEqual({ stale: [], remedy: 'npm run api-client' });
    },
    120_000,
  );
});
