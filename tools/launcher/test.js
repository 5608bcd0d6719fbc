#!/usr/bin/env node
/** `npm test`: typecheck, lint, then every jest suite. The body is src/test.ts. */
'use strict';

const { ensureDeps } = require('./ensure-deps');
const { runTypeScriptMain } = require('./bootstrap');

ensureDeps();
runTypeScriptMain(require.resolve('./src/test.ts'));
