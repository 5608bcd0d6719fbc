import { type Command } from 'commander';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram, type CliOutput, runCli } from './run-cli';

describe('runCli exit codes and reporting', () => {
  let configDir: string;

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'careen-run-'));
  });

  afterAll(async () => {
    await rm(configDir, { recursive: true, force: true });
  });

  const run = async (args: string[], env: Record<string, string> = {}, stdout?: CliOutput) => {
    let out = '';
    let err = '';
    const code = await runCli(args, {
      stdout: stdout ?? { write: (chunk: string) => (out += chunk) },
      stderr: { write: (chunk: string) => (err += chunk) },
      env: { CAREEN_CONFIG_DIR: configDir, ...env },
    });
    return { code, stdout: out, stderr: err };
  };

  it('prints help to stdout and exits 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: careen');
    for (const command of ['login', 'logout', 'org', 'user']) expect(result.stdout).toContain(command);
  });

  it('prints the version and exits 0', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('leaves --version to careen itself: no command defines it, as careen would print its version instead', () => {
    const program = buildProgram({
      io: { stdout: { write: () => true }, stderr: { write: () => true }, env: {} } as never,
      env: { configDir: '/nowhere', debug: false },
      store: undefined as never,
      now: () => new Date(),
    });
    const flags = (command: Command): string[] => [
      ...command.options.map((option) => `${command.name()} ${option.long}`),
      ...command.commands.flatMap(flags),
    ];
    expect(program.commands.flatMap(flags).filter((flag) => flag.endsWith(' --version'))).toEqual([]);
  });

  it('exits 2 with usage help on stderr for a group without a command', async () => {
    const result = await run(['user']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: careen user');
  });

  it('exits 2 for excess arguments', async () => {
    const result = await run(['logout', 'now']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('too many arguments');
  });

  it('refuses a malformed exchange URL as a user mistake', async () => {
    expect(await run(['org', 'show', '--exchange', 'localhost:8080'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: invalid exchange URL "localhost:8080": expected http://host:port or https://host\n',
    });
  });

  it('reports an unexpected failure without its stack unless CAREEN_DEBUG=1', async () => {
    const broken: CliOutput = {
      write: () => {
        throw new Error('stdout is gone');
      },
    };
    const quiet = await run(['logout'], {}, broken);
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toBe(
      'error: unexpected failure: stdout is gone\n(set CAREEN_DEBUG=1 to see where it happened)\n',
    );

    const debug = await run(['logout'], { CAREEN_DEBUG: '1' }, broken);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^error: unexpected failure: stdout is gone\nError: stdout is gone\n\s+at /);
  });
});
