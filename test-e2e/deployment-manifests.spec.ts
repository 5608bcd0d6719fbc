/**
 * `npm run check-deploy` on the deployment forms as they are, and on broken copies of them:
 * each break a reader would make (a field of the wrong type, a Deployment without a probe or
 * without resources, docker-compose.yml and the manifests drifting apart) is reported, naming
 * where it is.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = join(__dirname, '..');
const CHECKER = join(REPO_ROOT, 'tools', 'deploy', 'check-manifests.mjs');

async function check(root?: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CHECKER, ...(root ? [root] : [])]);
    return { code: 0, output: stdout };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

/** A copy of the deployment forms with one file changed by `edit`, which must change it. */
function brokenCopy(file: string, edit: (text: string) => string): string {
  const root = mkdtempSync(join(tmpdir(), 'careen-deploy-'));
  cpSync(join(REPO_ROOT, 'deploy'), join(root, 'deploy'), { recursive: true });
  cpSync(join(REPO_ROOT, 'docker-compose.yml'), join(root, 'docker-compose.yml'));
  const text = readFileSync(join(root, file), 'utf8');
  const edited = edit(text);
  if (edited === text) throw new Error(`the edit changed nothing in ${file}`);
  writeFileSync(join(root, file), edited);
  return root;
}

describe('the deployment forms', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const copy of copies) rmSync(copy, { recursive: true, force: true });
  });

  it('render, validate against the Kubernetes schemas and agree with docker-compose.yml', async () => {
    expect(await check()).toEqual({ code: 0, output: 'deployment forms: no problem found\n' });
  });

  it.each([
    [
      'a field of the wrong type',
      'deploy/kubernetes/base/services/exchange.yaml',
      (text: string) => text.replace('replicas: 2', 'replicas: two'),
      /^deploy\/kubernetes\/base: Deployment\/exchange: spec\/replicas must be integer/,
    ],
    [
      'a Deployment without its startup probe',
      'deploy/kubernetes/base/services/agbot.yaml',
      (text: string) => text.replace(/ {10}startupProbe:\n( {12}.*\n)+/, ''),
      /^deploy\/kubernetes\/overlays\/production: Deployment\/agbot: container agbot has no startupProbe/,
    ],
    [
      'a Deployment without resources',
      'deploy/kubernetes/base/services/notifier.yaml',
      (text: string) => text.replace(/ {10}resources:\n( {12}.*\n)+/, ''),
      /^deploy\/kubernetes\/base: Deployment\/notifier: container notifier requests no cpu or no memory/,
    ],
    [
      'a compose file Compose refuses',
      'docker-compose.yml',
      (text: string) =>
        text.replace(
          '    environment:\n      APP: exchange\n',
          '    colour: blue\n    environment:\n      APP: exchange\n',
        ),
      /^docker-compose\.yml: docker[ -]compose config: .*colour/,
    ],
    [
      'a compose port the manifests do not use',
      'docker-compose.yml',
      (text: string) => text.replace("CAREEN_EXCHANGE_PORT: '8080'", "CAREEN_EXCHANGE_PORT: '9080'"),
      /^docker-compose\.yml and deploy\/kubernetes\/base disagree on exchange: port/,
    ],
    [
      'a variable only compose gives',
      'docker-compose.yml',
      (text: string) =>
        text.replace('      APP: agbot\n', '      APP: agbot\n      CAREEN_AGBOT_LEASE_SECONDS: 30\n'),
      /^docker-compose\.yml and deploy\/kubernetes\/base disagree on agbot: only docker-compose\.yml sets CAREEN_AGBOT_LEASE_SECONDS/,
    ],
  ])('reports %s', async (_what, file, edit, problem) => {
    const copy = brokenCopy(file, edit);
    copies.push(copy);
    const { code, output } = await check(copy);
    expect({ code, reported: output.split('\n').some((line) => problem.test(line)), output }).toEqual({
      code: 1,
      reported: true,
      output: expect.any(String),
    });
  });
});
