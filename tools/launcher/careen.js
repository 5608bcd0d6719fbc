#!/usr/bin/env node
/**
 * The `careen` command as installed on PATH (`npm link` in the repository, or
 * `npm install --global .`): runs the CLI from its TypeScript sources in this repository,
 * exactly as `npm run careen -- …` does, in the caller's working directory.
 */
'use strict';

// `npm run careen` starts this in the repository whatever folder it was run from, and names
// that folder in INIT_CWD: paths given to the command are relative to it, as with `careen`.
if (process.env.npm_lifecycle_event === 'careen' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

process.argv.splice(2, 0, 'cli');
require('./run-app.js');
