#!/usr/bin/env node
/** `npm run nats-auth -- <dir>`: the bus's JWT authorization files for a deployment. The body is src/nats-auth.ts. */
'use strict';

const { runTypeScriptMain } = require('./bootstrap');

runTypeScriptMain(require.resolve('./src/nats-auth.ts'));
