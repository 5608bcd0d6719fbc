/**
 * `npm run bench -- changes [pollers]`: N nodes long-poll the exchange's change feed with
 * their own tokens; an admin publishes one node management policy (with an access token, as
 * the CLI does); how long until every node has it (p50/p99/max from sending the publish
 * request), next to two baselines measured in the same run: raw NATS core fan-out of one
 * message to N subscribers, and the same N long polls held by a bare node:http server that
 * answers them all at once with the body the exchange answered. The pollers share the
 * exchange's process and core, so their own response handling is in the figures too: the
 * bare server is the floor of any HTTP long poll answered from this one process.
 */
import { simulatedAgentPackage } from '@careen/agent/src/index';
import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer } from '@careen/auth';
import { ChangeTail } from '@careen/exchange/src/changes/change-tail';
import { SigningKeyStore } from '@careen/exchange/src/keys/signing-key.store';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import { withClient } from '@careen/testing';
import { connect } from '@nats-io/transport-node';
import { once } from 'node:events';
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { startBenchStack } from './support/bench-stack';
import { inTurn } from './support/round-robin';
import { printTable, summarize } from './support/stats';

const POLLERS = Number(process.argv[2] ?? 2_000);
/** Polls opened at once: fewer than a server's accept backlog (Node's default is 511) holds. */
const WAVE = 500;

/**
 * Opens `count` long polls wave by wave, each wave once the one before is held (`held()` counts
 * them), so that no connection is reset on its way in. A poll that fails on the way stops the run.
 */
async function openInWaves(count: number, open: (i: number) => Promise<void>, held: () => number) {
  const polls: Promise<void>[] = [];
  const failures: unknown[] = [];
  for (let start = 0; start < count; start += WAVE) {
    for (let i = start; i < Math.min(count, start + WAVE); i++) {
      const poll = open(i);
      poll.catch((error: unknown) => failures.push(error));
      polls.push(poll);
    }
    while (held() < polls.length) {
      if (failures.length > 0) throw failures[0];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return polls;
}

async function main(): Promise<void> {
  const pollers = () =>
    new Agent({ keepAlive: true, maxSockets: POLLERS + 16, maxFreeSockets: POLLERS + 16 });
  let agent = pollers();
  const stack = await startBenchStack({ postgres: true });
  const exchange = await startServiceInProcess(exchangeService, stack, {
    CAREEN_ROOT_PASSWORD: 'bench-password',
  });
  try {
    const json = (method: string, path: string, body?: unknown, token?: string, base = exchange.url) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const outgoing = request(
          new URL(path, base),
          {
            method,
            agent,
            headers: {
              'content-type': 'application/json',
              authorization: token
                ? `Bearer ${token}`
                : `Basic ${Buffer.from('root/root:bench-password').toString('base64')}`,
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
          },
        );
        outgoing.on('error', reject);
        outgoing.end(payload);
      });
    await json('POST', '/v1/orgs', { id: 'bench' });
    // The policy the pollers are woken by upgrades to `current`: a package must be published.
    const agentPackage = await fetch(new URL('/v1/agent-packages', exchange.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/gzip',
        authorization: `Basic ${Buffer.from('root/root:bench-password').toString('base64')}`,
      },
      body: await simulatedAgentPackage('1.0.0'),
    });
    if (!agentPackage.ok)
      throw new Error(`publishing the agent package: ${agentPackage.status} ${await agentPackage.text()}`);
    const token = String(
      (await json('POST', '/v1/auth/token', { org: 'root', username: 'root', password: 'bench-password' }))
        .accessToken,
    );
    // N nodes, inserted directly (registering each would spend the run hashing their tokens), and
    // a token for each minted with the exchange's own key, as POST /v1/auth/token would.
    const nodeIds = Array.from({ length: POLLERS }, (_, i) => `node-${i}`);
    await withClient(stack.databaseUrl, (client) =>
      client.query(
        `INSERT INTO exchange.nodes (org, id, name, token_hash) SELECT 'bench', id, id, 'unused' FROM unnest($1::text[]) AS id`,
        [nodeIds],
      ),
    );
    const issuer = new TokenIssuer(exchange.app.get(SigningKeyStore).current(), {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: 3600,
    });
    const nodeTokens = await Promise.all(
      nodeIds.map(async (node) => (await issuer.issue({ kind: 'node', org: 'bench', node })).accessToken),
    );
    const tail = exchange.app.get(ChangeTail);
    const since = Number(
      (await json('GET', '/v1/orgs/bench/changes?since=0&limit=1000', undefined, token)).lastId,
    );

    // N long-polls, all waiting before the change is made.
    const received: number[] = [];
    let answered: Record<string, unknown> = {};
    const polls = await openInWaves(
      POLLERS,
      (i) =>
        json('GET', `/v1/orgs/bench/changes?since=${since}&wait=60`, undefined, nodeTokens[i]).then(
          (body) => {
            received.push(performance.now());
            if (!Array.isArray(body.changes) || body.changes.length !== 1)
              throw new Error(`unexpected answer ${JSON.stringify(body)}`);
            answered = body;
          },
        ),
      () => tail.waiting,
    );
    const publishing = performance.now();
    const publishedPolicy = await json(
      'PUT',
      '/v1/orgs/bench/management-policies/upgrade-all',
      {
        constraints: ['careen.arch == amd64'],
        enabled: true,
        agentUpgradePolicy: { atLeastVersion: 'current', duration: 600 },
      },
      token,
    );
    const publishAnswered = performance.now() - publishing;
    if (publishedPolicy.name !== 'upgrade-all')
      throw new Error(`publishing the policy failed: ${JSON.stringify(publishedPolicy)}`);
    await Promise.all(polls);
    const feed = summarize(received.map((at) => at - publishing));
    // Both ends of every poll live in this process: the exchange's connections closed before the
    // bare server's are opened keep it inside its open-file limit at 5,000 pollers (beyond it,
    // a connection the server cannot accept is reset).
    agent.destroy();
    agent = pollers();

    // Bare node:http: the same N long polls from the same client, held, then all answered at once.
    const held: ServerResponse[] = [];
    const bare = createServer((_request, response) => void held.push(response));
    bare.listen(0, '127.0.0.1');
    await once(bare, 'listening');
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    const bareReceived: number[] = [];
    const barePolls = await openInWaves(
      POLLERS,
      (i) =>
        json('GET', `/v1/orgs/bench/changes?since=${since}&wait=60`, undefined, nodeTokens[i], bareUrl).then(
          () => void bareReceived.push(performance.now()),
        ),
      () => held.length,
    );
    const bareAnswering = performance.now();
    for (const response of held) {
      const text = JSON.stringify(answered);
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    }
    await Promise.all(barePolls);
    const floor = summarize(bareReceived.map((at) => at - bareAnswering));
    bare.close();

    // Raw: one message fanned out by NATS core to N subscriptions over 20 connections.
    const connections = await Promise.all(
      Array.from({ length: 20 }, () => connect({ servers: stack.natsUrl })),
    );
    const arrivals: number[] = [];
    let resolveAll: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (resolveAll = resolve));
    for (let i = 0; i < POLLERS; i++) {
      inTurn(connections, i).subscribe('bench.fanout', {
        callback: () => {
          arrivals.push(performance.now());
          if (arrivals.length === POLLERS) resolveAll();
        },
      });
    }
    await Promise.all(connections.map((nc) => nc.flush()));
    const publisher = await connect({ servers: stack.natsUrl });
    const published = performance.now();
    publisher.publish('bench.fanout', 'change');
    await all;
    const raw = summarize(arrivals.map((at) => at - published));
    await Promise.all([publisher, ...connections].map((nc) => nc.close()));

    printTable(
      `changes: ${POLLERS} long-polling nodes, one management policy published (ms after the publish request was sent; it was answered after ${publishAnswered.toFixed(1)} ms)`,
      [
        { path: 'exchange change feed', first: feed.min, p50: feed.p50, p99: feed.p99, max: feed.max },
        { path: 'raw NATS core fan-out', first: raw.min, p50: raw.p50, p99: raw.p99, max: raw.max },
        {
          path: 'bare node:http long polls',
          first: floor.min,
          p50: floor.p50,
          p99: floor.p99,
          max: floor.max,
        },
        {
          path: 'ratio to raw NATS',
          p50: feed.p50 / raw.p50,
          p99: feed.p99 / raw.p99,
          max: feed.max / raw.max,
        },
        {
          path: 'ratio to bare node:http',
          p50: feed.p50 / floor.p50,
          p99: feed.p99 / floor.p99,
          max: feed.max / floor.max,
        },
      ],
    );
  } finally {
    agent.destroy();
    await exchange.close();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
