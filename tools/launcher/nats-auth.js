#!/usr/bin/env node
/** `npm run nats-auth -- <dir>`: the bus's JWT authorization files for a deployment. The body is src/nats-auth.ts. */
'use strict';

const { runTypeScriptMain } = require('./bootstrap');

// `npm run nats-auth` starts this in the repository whatever folder it was run from, and names
// that folder in INIT_CWD: the folder given is relative to it.
if (process.env.npm_lifecycle_event === 'nats-auth' && process.env.INIT_CWD)
  process.chdir(process.env.INIT_CWD);

runTypeScriptMain(require.resolve('./src/nats-auth.ts'));
