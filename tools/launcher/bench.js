#!/usr/bin/env node
/** `npm run bench -- <name>`: runs bench/<name>.bench.ts. The body is src/bench.ts. */
'use strict';

const { ensureDeps } = require('./ensure-deps');
const { runTypeScriptMain } = require('./bootstrap');

ensureDeps();
runTypeScriptMain(require.resolve('./src/bench.ts'));
