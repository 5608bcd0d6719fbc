import { freePort } from '@careen/devstack';
import { eventually } from '@careen/testing';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const main = resolve(__dirname, 'main.ts');

function runAgent(env: Record<string, string>) {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', main], {
    cwd: resolve(__dirname, '../../..'),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const started = new Promise<void>((done, fail) => {
    child.stdout.on('data', () => stdout.includes('agent started') && done());
    void exited.then(() => fail(new Error(`agent exited before starting: ${stderr}`)));
  });
  // A test that expects an early exit does not wait for the start.
  started.catch(() => undefined);
  return { child, exited, started, output: () => ({ stdout, stderr }) };
}

describe('careen-agent process', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'careen-agent-proc-'));
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('starts with its config, keeps state on disk and exits 0 on SIGTERM', async () => {
    const agent = runAgent({
      CAREEN_EXCHANGE_URL: `http://127.0.0.1:${await freePort()}`,
      CAREEN_AGENT_ORG: 'acme',
      CAREEN_AGENT_NODE_ID: 'edge-7',
      CAREEN_AGENT_TOKEN: 'edge-7-node-token',
      CAREEN_AGENT_STATE_DIR: dir,
    });
    await agent.started;
    await eventually(() => expect(agent.output().stdout).toContain('exchange unreachable'));
    agent.child.kill('SIGTERM');

    expect(await agent.exited).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'))).toMatchObject({
      org: 'acme',
      nodeId: 'edge-7',
      starts: 1,
    });
    const lines = agent
      .output()
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.msg)).toEqual([
      'agent started',
      'exchange unreachable; will keep trying',
      'agent stopping',
    ]);
  });

  it('stops at once with exit 78 and the variable named when its config is wrong', async () => {
    const agent = runAgent({
      CAREEN_EXCHANGE_URL: 'not a url',
      CAREEN_AGENT_ORG: 'acme',
      CAREEN_AGENT_STATE_DIR: dir,
    });

    expect(await agent.exited).toBe(78);
    expect(agent.output().stderr).toContain('CAREEN_EXCHANGE_URL');
    expect(agent.output().stderr).not.toContain('    at ');
  });
});
