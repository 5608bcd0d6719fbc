#!/usr/bin/env node
/**
 * The `careen` command as installed on PATH (`npm link` in the repository, or
 * `npm install --global .`): runs the CLI from its TypeScript sources in this repository,
 * exactly as `npm run careen -- …` does.
 */
'use strict';

process.argv.splice(2, 0, 'cli');
require('./run-app.js');
