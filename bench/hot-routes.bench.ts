/**
 * `npm run bench -- hot-routes [nodes] [concurrency]` (default 2000, 16): what one request of
 * each hot route of the agent path costs the service that answers it. The exchange and the
 * agbot run in processes of their own on a private Postgres and NATS; `nodes` nodes in HA
 * groups of two are seeded, and each route is called for them in turn, `concurrency` requests
 * at a time over kept-alive connections, as a fleet's agents call it:
 * status report and change-feed poll (one per node), management status, package download, and
 * the agbot's grant, renew and release (one per HA group). Printed per route: requests/s,
 * p50/p99 latency, the answering service's CPU per request and Postgres's, and the ratio of
 * the service's CPU to the floor — a bare node:http server doing one Postgres round trip per
 * request, measured in the same run. Every answer must be a success, or the run fails.
 */
import { simulatedAgentPackage } from '@careen/agent/src/index';
import { hashSecret } from '@careen/auth';
import { withClient } from '@careen/testing';
import { join } from 'node:path';
import { startExchangeAndAgbot } from './support/hub';
import { startBenchStack, type BenchStack } from './support/bench-stack';
import { type Call, HttpClient } from './support/http-client';
import { cpuSeconds, startPortScript, type ServiceProcess } from './support/service-process';
import { printTable, summarize } from './support/stats';

const NODES = 2 * Math.ceil(Number(process.argv[2] ?? 2_000) / 2);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const ROOT_PASSWORD = 'bench-password';
const NODE_TOKEN = 'bench-node-token-secret';
const ORG = 'bench';
const LONG_POLL_SECONDS = 2;
const POLICY = 'up';

const nodeId = (i: number) => `node-${String(i).padStart(5, '0')}`;
/** Nodes 2g and 2g+1 form group g; the grant routes act for the first of each. */
const groupName = (g: number) => `group-${g}`;

interface RouteFigures {
  route: string;
  service: string;
  requests: number;
  latenciesMs: number[];
  elapsedMs: number;
  serviceCpuS: number;
  postgresCpuS: number;
}

/** Sends `calls` to the process `pid` serves at `base`, measuring its CPU and Postgres's. */
async function measure(
  stack: BenchStack,
  client: HttpClient,
  route: string,
  service: string,
  target: { url: string; pid: number },
  calls: Call[],
  concurrency = CONCURRENCY,
): Promise<RouteFigures> {
  process.stderr.write(`[hot-routes] ${route}: ${calls.length} requests\n`);
  const cpuBefore = cpuSeconds(target.pid);
  const postgresBefore = stack.cpuSeconds().postgres;
  const { latenciesMs, elapsedMs } = await client.all(target.url, calls, concurrency);
  return {
    route,
    service,
    requests: calls.length,
    latenciesMs,
    elapsedMs,
    serviceCpuS: cpuSeconds(target.pid) - cpuBefore,
    postgresCpuS: stack.cpuSeconds().postgres - postgresBefore,
  };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const services: ServiceProcess[] = [];
  // Every node may hold a long poll at once.
  const client = new HttpClient(NODES + 4);
  let floor: Awaited<ReturnType<typeof startPortScript>> | undefined;
  try {
    const { exchange, agbot } = await startExchangeAndAgbot(stack, ROOT_PASSWORD, services);
    // The floor (see support/floor-server.ts) in its own process.
    floor = await startPortScript(join(__dirname, 'support', 'floor-server.ts'), [stack.databaseUrl]);
    const exchangeTarget = { url: exchange.url, pid: exchange.child.pid! };
    const agbotTarget = { url: agbot.url, pid: agbot.child.pid! };

    // Set-up, as root: the org, two packages, the nodes (inserted directly, sharing one token
    // hash, as the fleet bench does), their HA groups and a policy moving every node to 2.0.0.
    const root = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;
    const setUp = async (method: string, path: string, body?: unknown) => {
      const answer = await client.send(exchange.url, { method, path, token: root, body });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    };
    await setUp('POST', '/v1/orgs', { id: ORG });
    for (const version of ['1.0.0', '2.0.0']) {
      const content = await simulatedAgentPackage(version);
      const response = await fetch(new URL('/v1/agent-packages', exchange.url), {
        method: 'POST',
        headers: { authorization: root, 'content-type': 'application/gzip' },
        body: content,
      });
      if (!response.ok) throw new Error(`package ${version}: ${response.status} ${await response.text()}`);
    }
    const ids = Array.from({ length: NODES }, (_, i) => nodeId(i));
    const groups = NODES / 2;
    const tokenHash = await hashSecret(NODE_TOKEN);
    await withClient(stack.databaseUrl, (pg) =>
      pg.query(
        `INSERT INTO exchange.nodes (org, id, name, token_hash) SELECT $2, id, id, $3 FROM unnest($1::text[]) AS id`,
        [ids, ORG, tokenHash],
      ),
    );
    await client.all(
      exchange.url,
      Array.from({ length: groups }, (_, g) => ({
        method: 'POST',
        path: `/v1/orgs/${ORG}/hagroups`,
        token: root,
        body: { name: groupName(g), members: [nodeId(2 * g), nodeId(2 * g + 1)] },
      })),
      CONCURRENCY,
    );
    await setUp('PUT', `/v1/orgs/${ORG}/management-policies/${POLICY}`, {
      enabled: true,
      allowDisruptive: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now' },
    });
    // Each node's own access token, as its agent holds one (the shared secret is checked by
    // scrypt once, then remembered).
    const tokens: string[] = [];
    for (const id of ids) {
      const answer = await client.send(exchange.url, {
        method: 'POST',
        path: '/v1/auth/token',
        body: { org: ORG, node: id, token: NODE_TOKEN },
      });
      if (answer.status !== 200) throw new Error(`token of ${id}: ${answer.status} ${answer.body}`);
      tokens.push(`Bearer ${(JSON.parse(answer.body) as { accessToken: string }).accessToken}`);
    }

    const perNode = (call: (i: number) => Omit<Call, 'token'>): Call[] =>
      ids.map((_, i) => ({ ...call(i), token: tokens[i] }));
    const firstMembers = (call: (i: number) => Omit<Call, 'token'>): Call[] =>
      Array.from({ length: groups }, (_, g) => ({ ...call(2 * g), token: tokens[2 * g] }));
    const status = {
      agentVersion: { package: '1.0.0', failed: null, upgradeStart: null, upgradeEnd: null },
      workloads: [],
    };
    const floorFigures = await measure(
      stack,
      client,
      'floor: node:http + one SELECT',
      'floor',
      { url: floor.url, pid: floor.pid },
      perNode(() => ({ method: 'GET', path: '/' })),
    );
    const figures: RouteFigures[] = [floorFigures];
    figures.push(
      await measure(
        stack,
        client,
        'report status',
        'exchange',
        exchangeTarget,
        perNode((i) => ({
          method: 'PUT',
          path: `/v1/orgs/${ORG}/nodes/${nodeId(i)}/status`,
          body: status,
        })),
      ),
    );
    const head = await client.send(exchange.url, {
      method: 'GET',
      path: `/v1/orgs/${ORG}/changes/head`,
      token: root,
    });
    const { lastId } = JSON.parse(head.body) as { lastId: number };
    figures.push(
      await measure(
        stack,
        client,
        'poll the change feed (nothing new)',
        'exchange',
        exchangeTarget,
        perNode(() => ({
          method: 'GET',
          path: `/v1/orgs/${ORG}/changes?since=${lastId}&wait=0`,
        })),
      ),
    );
    // As an idle fleet polls: every node holds a long poll at once, each answered empty when
    // its wait runs out (then its heartbeat is stored with the others').
    figures.push(
      await measure(
        stack,
        client,
        `long poll, ${LONG_POLL_SECONDS} s, every node at once (nothing new)`,
        'exchange',
        exchangeTarget,
        [
          ...perNode(() => ({
            method: 'GET',
            path: `/v1/orgs/${ORG}/changes?since=${lastId}&wait=${LONG_POLL_SECONDS}`,
          })),
          ...perNode(() => ({
            method: 'GET',
            path: `/v1/orgs/${ORG}/changes?since=${lastId}&wait=${LONG_POLL_SECONDS}`,
          })),
        ],
        NODES,
      ),
    );
    figures.push(
      await measure(
        stack,
        client,
        'report a management status',
        'exchange',
        exchangeTarget,
        perNode((i) => ({
          method: 'PUT',
          path: `/v1/orgs/${ORG}/nodes/${nodeId(i)}/managementStatus/${POLICY}`,
          body: { status: 'downloading', version: '2.0.0' },
        })),
      ),
    );
    figures.push(
      await measure(
        stack,
        client,
        'download the package',
        'exchange',
        exchangeTarget,
        perNode(() => ({
          method: 'GET',
          path: '/v1/agent-packages/2.0.0/content',
        })),
      ),
    );
    // The agbot learns nodes, groups and the policy from the exchange's feed: wait until it
    // grants the last group's first member, then give that slot back.
    const probe = `/v1/orgs/${ORG}/nodes/${nodeId(NODES - 2)}/upgrade`;
    for (let attempt = 0; ; attempt++) {
      const answer = await client.send(agbot.url, {
        method: 'POST',
        path: probe,
        token: tokens[NODES - 2],
        body: { managementPolicy: POLICY },
      });
      if (answer.status === 200) break;
      if (attempt > 600) throw new Error(`the agbot never granted: ${answer.status} ${answer.body}`);
      await new Promise((done) => setTimeout(done, 100));
    }
    await client.send(agbot.url, { method: 'DELETE', path: probe, token: tokens[NODES - 2] });
    const upgrade = (i: number) => `/v1/orgs/${ORG}/nodes/${nodeId(i)}/upgrade`;
    figures.push(
      await measure(
        stack,
        client,
        'take the HA-group slot',
        'agbot',
        agbotTarget,
        firstMembers((i) => ({
          method: 'POST',
          path: upgrade(i),
          body: { managementPolicy: POLICY },
        })),
      ),
    );
    figures.push(
      await measure(
        stack,
        client,
        'renew the slot',
        'agbot',
        agbotTarget,
        firstMembers((i) => ({
          method: 'POST',
          path: upgrade(i),
          body: { managementPolicy: POLICY, renew: true },
        })),
      ),
    );
    figures.push(
      await measure(
        stack,
        client,
        'release the slot',
        'agbot',
        agbotTarget,
        firstMembers((i) => ({
          method: 'DELETE',
          path: upgrade(i),
        })),
      ),
    );

    const floorCpuMs = (floorFigures.serviceCpuS * 1000) / floorFigures.requests;
    printTable(
      `hot routes: ${NODES} nodes in ${groups} HA groups of 2, ${CONCURRENCY} requests at a time, each service in its own process`,
      figures.map((each) => {
        const latency = summarize(each.latenciesMs);
        const cpuMs = (each.serviceCpuS * 1000) / each.requests;
        return {
          route: each.route,
          service: each.service,
          requests: each.requests,
          'req/s': each.requests / (each.elapsedMs / 1000),
          'p50 ms': latency.p50,
          'p99 ms': latency.p99,
          'service CPU ms/req': cpuMs,
          'Postgres CPU ms/req': (each.postgresCpuS * 1000) / each.requests,
          'CPU / floor': cpuMs / floorCpuMs,
        };
      }),
    );
  } finally {
    client.close();
    await floor?.stop();
    for (const service of services) await service.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
