/**
 * A Prometheus server per test, as the alert-gate tests need one: it scrapes the test's own
 * metrics endpoint every second and evaluates the test's alerting rules every second, so a
 * metric the test sets fires its alert a second or two later. It can be stopped and started
 * again on the same port, as an outage. The binary is CAREEN_PROMETHEUS_BIN, else `prometheus`
 * on PATH (`npm test` provides it from Debian's package).
 */
import { freePort } from '@careen/devstack';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually';

export interface TestPrometheus {
  url: string;
  /** Stops the server, keeping its port and files for `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** `rules`: the rule file's YAML; `scrape`: the `host:port` of the test's /metrics. */
export async function startTestPrometheus(options: {
  rules: string;
  scrape: string;
}): Promise<TestPrometheus> {
  const binary = process.env.CAREEN_PROMETHEUS_BIN || 'prometheus';
  const dir = mkdtempSync(join(tmpdir(), 'careen-test-prometheus-'));
  writeFileSync(join(dir, 'rules.yml'), options.rules);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      'rule_files: [rules.yml]',
      `scrape_configs: [{ job_name: test, static_configs: [{ targets: ['${options.scrape}'] }] }]`,
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    child = spawn(
      binary,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.on('error', (error) => (output += `\n${error.message}`));
    await eventually(
      async () => {
        if (child?.exitCode !== null) throw new Error(`prometheus exited: ${output}`);
        const ready = await fetch(`${url}/-/ready`);
        if (ready.status !== 200) throw new Error(`prometheus is not ready: ${ready.status}`);
      },
      { timeoutMs: 20_000 },
    );
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };

  await start();
  return {
    url,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
