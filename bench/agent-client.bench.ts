/**
 * `npm run bench -- agent-client [calls] [concurrency]` (default 20000, 16): what the agent's
 * own HTTP client costs it per request, for its two most frequent calls (the change-feed poll
 * and the status report). A bare node:http server answers both from memory in a process of its
 * own (support/http-layer-server.ts), so this process's CPU is the client's alone. The agent's
 * stack (the generated client, `resilientFetch` with a bearer token, `dispatcherFetch` over the
 * agent's own connection pool, as ExchangeClient and HubConnections set it up) is measured next
 * to undici's own request API on a pool alike, sending the same requests and parsing the same
 * answers, in the same run. A simulated fleet pays the difference on every request of every
 * agent; a small edge box pays it on its own.
 */
import { HubConnections } from '@careen/agent/src/exchange/hub-connections';
import { dataOf, type Exchange, serviceClient } from '@careen/api-client';
import { join } from 'node:path';
import { Agent } from 'undici';
import { AGENT_STATUS } from './support/agent-status';
import { startPortScript } from './support/service-process';
import { printTable } from './support/stats';

const CALLS = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const WARM_UP = 2_000;
const TOKEN = 'bench-node-token';

type Call = (i: number) => Promise<unknown>;

/** CPU microseconds this process spent per call over `calls` calls, `concurrency` at a time. */
async function cpuPerCall(call: Call, calls: number): Promise<number> {
  const started = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < calls; i = next++) await call(i);
    }),
  );
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

async function main(): Promise<void> {
  const server = await startPortScript(join(__dirname, 'support', 'http-layer-server.ts'), ['bare']);
  const connections = new HubConnections();
  const raw = new Agent({ keepAliveMaxTimeout: 60_000 });
  try {
    const api = serviceClient<Exchange.paths>(server.url, {
      auth: { bearer: async () => TOKEN, invalidate: () => undefined },
      retries: 0,
      fetch: connections.send,
    });
    const node = (i: number) => ({ org: 'bench', id: `node-${i % 1000}` });
    const agentCalls: Record<string, Call> = {
      'poll the change feed': (i) =>
        dataOf(
          api.GET('/v1/orgs/{org}/changes', {
            params: { path: { org: 'bench' }, query: { since: i, wait: 0, limit: 1000 } },
          }),
        ),
      'report status': (i) =>
        dataOf(
          api.PUT('/v1/orgs/{org}/nodes/{id}/status', { params: { path: node(i) }, body: AGENT_STATUS }),
        ),
    };
    const rawCall =
      (method: 'GET' | 'PUT', path: (i: number) => string, body?: object): Call =>
      async (i) => {
        const answer = await raw.request({
          origin: server.url,
          method,
          path: path(i),
          headers: {
            authorization: `Bearer ${TOKEN}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        if (answer.statusCode !== 200) throw new Error(`${method} ${path(i)}: ${answer.statusCode}`);
        return answer.body.json();
      };
    const rawCalls: Record<string, Call> = {
      'poll the change feed': rawCall('GET', (i) => `/v1/orgs/bench/changes?since=${i}&wait=0&limit=1000`),
      'report status': rawCall('PUT', (i) => `/v1/orgs/bench/nodes/node-${i % 1000}/status`, AGENT_STATUS),
    };
    const rows = [];
    for (const route of Object.keys(agentCalls)) {
      await cpuPerCall(agentCalls[route]!, WARM_UP);
      await cpuPerCall(rawCalls[route]!, WARM_UP);
      // Alternated halves, so that a slower moment of the machine weighs on both alike.
      let agent = 0;
      let bare = 0;
      for (let half = 0; half < 2; half++) {
        agent += (await cpuPerCall(agentCalls[route]!, CALLS / 2)) / 2;
        bare += (await cpuPerCall(rawCalls[route]!, CALLS / 2)) / 2;
      }
      rows.push({
        route,
        'agent client (µs CPU per call)': agent,
        "undici's request API (µs)": bare,
        'ratio (agent / undici)': agent / bare,
      });
    }
    printTable(
      `the agent's HTTP client: ${CALLS} calls of each route, ${CONCURRENCY} at a time, this process's CPU only`,
      rows,
    );
  } finally {
    await connections.close();
    await raw.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
