#!/usr/bin/env node
/**
 * The `careen-agent` command as installed on PATH (`npm link` in the repository, or
 * `npm install --global .`): runs the agent (or `careen-agent simulate …`) from its
 * TypeScript sources in this repository.
 */
'use strict';

process.argv.splice(2, 0, 'agent');
require('./run-app.js');
