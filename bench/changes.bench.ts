/**
 * `npm run bench -- changes [pollers]`: N nodes long-poll the exchange's change feed with
 * their own tokens; one node management policy is published; how long until every node has it
 * (p50/p99/max from sending the publish request), next to raw NATS core fan-out of one
 * message to N subscribers in the same run. The pollers share the exchange's process and
 * core, so their own response handling is in the figures too.
 */
import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer } from '@careen/auth';
import { ChangeTail } from '@careen/exchange/src/changes/change-tail';
import { SigningKeyStore } from '@careen/exchange/src/keys/signing-key.store';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import { withClient } from '@careen/testing';
import { connect } from '@nats-io/transport-node';
import { Agent, request } from 'node:http';
import { startBenchStack } from './support/bench-stack';
import { printTable, summarize } from './support/stats';

const POLLERS = Number(process.argv[2] ?? 2_000);

async function main(): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: POLLERS + 16 });
  const stack = await startBenchStack({ postgres: true });
  const exchange = await startServiceInProcess(exchangeService, stack, {
    CAREEN_ROOT_PASSWORD: 'bench-password',
  });
  try {
    const json = (method: string, path: string, body?: unknown, token?: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const outgoing = request(
          new URL(path, exchange.url),
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
    const polls = nodeTokens.map((nodeToken) =>
      json('GET', `/v1/orgs/bench/changes?since=${since}&wait=60`, undefined, nodeToken).then((body) => {
        received.push(performance.now());
        if (!Array.isArray(body.changes) || body.changes.length !== 1)
          throw new Error(`unexpected answer ${JSON.stringify(body)}`);
      }),
    );
    while ((tail as unknown as { waiters: Set<unknown> }).waiters.size < POLLERS)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const publishing = performance.now();
    const publishedPolicy = await json('PUT', '/v1/orgs/bench/management-policies/upgrade-all', {
      constraints: ['careen.arch == amd64'],
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: 'current', duration: 600 },
    });
    if (publishedPolicy.name !== 'upgrade-all')
      throw new Error(`publishing the policy failed: ${JSON.stringify(publishedPolicy)}`);
    await Promise.all(polls);
    const feed = summarize(received.map((at) => at - publishing));

    // Raw: one message fanned out by NATS core to N subscriptions over 20 connections.
    const connections = await Promise.all(
      Array.from({ length: 20 }, () => connect({ servers: stack.natsUrl })),
    );
    const arrivals: number[] = [];
    let resolveAll: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (resolveAll = resolve));
    for (let i = 0; i < POLLERS; i++) {
      connections[i % connections.length]!.subscribe('bench.fanout', {
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
      `changes: ${POLLERS} long-polling nodes, one management policy published (ms after the publish request was sent)`,
      [
        { path: 'exchange change feed', first: feed.min, p50: feed.p50, p99: feed.p99, max: feed.max },
        { path: 'raw NATS core fan-out', first: raw.min, p50: raw.p50, p99: raw.p99, max: raw.max },
        { path: 'ratio to raw', p50: feed.p50 / raw.p50, p99: feed.p99 / raw.p99, max: feed.max / raw.max },
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
