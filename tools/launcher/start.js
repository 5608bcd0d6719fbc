#!/usr/bin/env node
/** `npm start`: the whole platform on this machine. The body is src/start.ts. */
'use strict';

const { ensureDeps } = require('./ensure-deps');
const { relaunchInOwnProcessGroup, runTypeScriptMain } = require('./bootstrap');

ensureDeps();
if (!relaunchInOwnProcessGroup(__filename)) runTypeScriptMain(require.resolve('./src/start.ts'));
