#!/usr/bin/env node
/**
 * Runs one app of the monorepo from its TypeScript sources:
 *   node tools/launcher/run-app.js <app> [args…]
 * is `node -r @swc-node/register apps/<app>/src/main.ts args…` run in the caller's working
 * directory, so paths given as arguments are the caller's, behaving like exec: same stdio,
 * signals passed on, the app's exit code (or signal) returned.
 * Plain CommonJS with nothing but Node. The container image runs the compiled apps instead
 * (`node dist/<app>/main.js`, see tools/build/build-app.js).
 */
'use strict';

const { spawn } = require('node:child_process');
const { existsSync, readdirSync } = require('node:fs');
const { join, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..', '..');
const APPS_DIR = join(REPO_ROOT, 'apps');
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

function availableApps() {
  if (!existsSync(APPS_DIR)) return [];
  return readdirSync(APPS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(APPS_DIR, entry.name, 'src', 'main.ts')))
    .map((entry) => entry.name)
    .sort();
}

function fail(message, code) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function main() {
  const [app, ...args] = process.argv.slice(2);
  const apps = availableApps();
  const choices = apps.length > 0 ? apps.join(', ') : '(none yet)';
  if (!app) fail(`usage: node tools/launcher/run-app.js <app> [args…]\napps: ${choices}`, 2);
  if (!apps.includes(app)) fail(`unknown app "${app}": no apps/${app}/src/main.ts. Apps: ${choices}`, 2);

  const register = require.resolve('@swc-node/register', { paths: [REPO_ROOT] });
  const entry = join(APPS_DIR, app, 'src', 'main.ts');
  const child = spawn(process.execPath, ['-r', register, entry, ...args], {
    stdio: 'inherit',
    // This checkout's own tsconfig: one inherited from another checkout's launcher would map
    // @careen/* into that checkout, loading two copies of its libraries.
    env: { ...process.env, TS_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json') },
  });

  const forward = (signal) => {
    // A Ctrl-C at a terminal already reached the app (same process group): sending it again
    // would turn a graceful stop into a forced one.
    if (signal === 'SIGINT' && process.stdin.isTTY) return;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);

  child.once('error', (error) => fail(`could not start ${app}: ${error.message}`, 1));
  child.once('exit', (code, signal) => {
    for (const name of FORWARDED_SIGNALS) process.removeListener(name, forward);
    if (signal) {
      // Die of the same signal so a parent sees exactly what the app saw.
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

main();
