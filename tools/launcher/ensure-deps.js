/**
 * Makes sure the workspace's dependencies are installed and match package-lock.json before a
 * launcher touches anything that needs them. Plain CommonJS with nothing but Node: it runs
 * before node_modules exists.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const { existsSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..', '..');
const MINIMUM_NODE = [20, 19, 0];

function assertNodeVersion() {
  const current = process.versions.node.split('.').map(Number);
  for (let i = 0; i < MINIMUM_NODE.length; i += 1) {
    if (current[i] > MINIMUM_NODE[i]) return;
    if (current[i] < MINIMUM_NODE[i]) {
      process.stderr.write(
        `Careen needs Node.js ${MINIMUM_NODE.join('.')} or newer; this is ${process.versions.node}.\n`,
      );
      process.exit(1);
    }
  }
}

/** Why an install is needed, or undefined when node_modules is up to date. */
function installReason() {
  const lock = join(REPO_ROOT, 'package-lock.json');
  const installed = join(REPO_ROOT, 'node_modules', '.package-lock.json');
  if (!existsSync(join(REPO_ROOT, 'node_modules'))) return 'node_modules is missing';
  if (!existsSync(installed)) return 'node_modules was not installed by npm';
  if (existsSync(lock) && statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
    return 'package-lock.json changed since the last install';
  }
  return undefined;
}

function ensureDeps() {
  assertNodeVersion();
  const reason = installReason();
  if (!reason) return;
  // `npm install` installs the versions pinned in package-lock.json, like `npm ci`, but also
  // accepts a lockfile that lacks other platforms' optional binaries (swc, the resolver),
  // which some npm releases leave out of the lockfile and `npm ci` then refuses.
  process.stdout.write(`Installing dependencies (${reason}): npm install --no-audit --no-fund\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['install', '--no-audit', '--no-fund'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (result.status === 0) return;
  const why = result.error ? result.error.message : `exit code ${result.status ?? result.signal}`;
  process.stderr.write(
    `\nInstalling dependencies failed (${why}).\n` +
      'Check that npm can reach its registry (proxy and .npmrc settings) and that Node.js is 20.19 or newer,\n' +
      `then run "npm install" in ${REPO_ROOT} yourself and start again.\n`,
  );
  process.exit(1);
}

module.exports = { ensureDeps, REPO_ROOT };
