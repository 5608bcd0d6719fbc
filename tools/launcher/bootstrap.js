/**
 * Shared by the launcher entry points: loads the TypeScript compiler hook and runs a
 * TypeScript body's `main(argv)`, exiting with the code it resolves to.
 */
'use strict';

const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { REPO_ROOT } = require('./ensure-deps');

const OWN_GROUP_MARK = 'CAREEN_LAUNCHER_OWN_GROUP';
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runTypeScriptMain(file) {
  // This checkout's own: one inherited from another checkout's launcher would map @careen/* there.
  process.env.TS_NODE_PROJECT = join(REPO_ROOT, 'tsconfig.json');
  require('@swc-node/register');
  const { main } = require(file);
  Promise.resolve()
    .then(() => main(process.argv.slice(2)))
    .then(
      (code) => process.exit(typeof code === 'number' ? code : 0),
      (error) => {
        process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
}

/**
 * Runs `script` again as the leader of a new process group and relays the first stop signal
 * to it. Returns false when already in that copy. A Ctrl-C at a terminal signals the whole
 * foreground process group; in a group of its own, the launcher alone decides in which order
 * services, NATS and Postgres stop.
 */
function relaunchInOwnProcessGroup(script) {
  if (process.env[OWN_GROUP_MARK] === '1' || process.platform === 'win32') return false;
  const child = spawn(process.execPath, [script, ...process.argv.slice(2)], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [OWN_GROUP_MARK]: '1' },
  });
  let relayed = false;
  const relay = (signal) => {
    if (relayed) return;
    relayed = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, relay);
  child.once('error', (error) => {
    process.stderr.write(`could not start the launcher: ${error.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => process.exit(code === null ? 128 + signalNumber(signal) : code));
  return true;
}

function signalNumber(signal) {
  return require('node:os').constants.signals[signal] || 0;
}

module.exports = { runTypeScriptMain, relaunchInOwnProcessGroup };
