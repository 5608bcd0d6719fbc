#!/usr/bin/env node
/** `npm run chaos -- [--minutes N] [--seed S]`: the chaos run, long. The body is src/chaos.ts. */
'use strict';

const { ensureDeps } = require('./ensure-deps');
const { runTypeScriptMain } = require('./bootstrap');

ensureDeps();
runTypeScriptMain(require.resolve('./src/chaos.ts'));
