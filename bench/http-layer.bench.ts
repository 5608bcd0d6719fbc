/**
 * `npm run bench -- http-layer [requests] [concurrency]` (default 20000, 16): what the HTTP
 * layer alone costs one request of the agent path, on the stacks a hub service could run on.
 * Each stack (support/http-layer-server.ts) runs in a process of its own and answers the
 * change-feed poll (a query to check) and the status report (a JSON body to check) from
 * memory, so no Postgres, bus or telemetry cost is in the figures: a bare node:http server,
 * then Nest on Express and on Fastify, each checking requests with the services' validation
 * pipe over the exchange's own DTOs, with class-validator alone or first with the DTOs' checks
 * compiled by Ajv, as the services do.
 * Printed per stack and route: requests/s, p50/p99, the stack's CPU per request, and that CPU
 * next to the bare server's and to today's stack (Nest on Express with compiled checks),
 * all measured in the same run. Every answer must be a success, and a request of each route
 * that breaks a rule must be refused with 400 by every stack, or the run fails.
 */
import { join } from 'node:path';
import { AGENT_STATUS } from './support/agent-status';
import { type Call, HttpClient } from './support/http-client';
import { cpuSeconds, startPortScript } from './support/service-process';
import { printTable, summarize } from './support/stats';

const REQUESTS = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const WARM_UP = 2_000;
const STACKS = ['bare', 'express-pipe', 'express-compiled', 'fastify-pipe', 'fastify-compiled'] as const;
const TODAY = 'express-compiled';
const TOKEN = 'Bearer bench-node-token';

const ROUTES: { route: string; call: (i: number) => Call; refused: Call }[] = [
  {
    route: 'poll the change feed',
    call: (i) => ({ method: 'GET', path: `/v1/orgs/bench/changes?since=${i}&wait=0`, token: TOKEN }),
    refused: { method: 'GET', path: '/v1/orgs/bench/changes?since=-1', token: TOKEN },
  },
  {
    route: 'report status',
    call: (i) => ({
      method: 'PUT',
      path: `/v1/orgs/bench/nodes/node-${i % 1000}/status`,
      token: TOKEN,
      body: AGENT_STATUS,
    }),
    refused: {
      method: 'PUT',
      path: '/v1/orgs/bench/nodes/node-1/status',
      token: TOKEN,
      body: { workloads: 'all' },
    },
  },
];

interface Figures {
  stack: string;
  route: string;
  latenciesMs: number[];
  elapsedMs: number;
  cpuMsPerRequest: number;
}

async function measureStack(stack: string, client: HttpClient): Promise<Figures[]> {
  process.stderr.write(`[http-layer] ${stack}\n`);
  const server = await startPortScript(join(__dirname, 'support', 'http-layer-server.ts'), [stack]);
  try {
    const figures: Figures[] = [];
    for (const { route, call, refused } of ROUTES) {
      const answer = await client.send(server.url, refused);
      if (stack !== 'bare' && answer.status !== 400)
        throw new Error(
          `${stack} answered ${answer.status} to a ${route} that breaks a rule: ${answer.body}`,
        );
      await client.all(
        server.url,
        Array.from({ length: WARM_UP }, (_, i) => call(i)),
        CONCURRENCY,
      );
      const cpuBefore = cpuSeconds(server.pid);
      const { latenciesMs, elapsedMs } = await client.all(
        server.url,
        Array.from({ length: REQUESTS }, (_, i) => call(i)),
        CONCURRENCY,
      );
      const cpuMsPerRequest = ((cpuSeconds(server.pid) - cpuBefore) * 1000) / REQUESTS;
      figures.push({ stack, route, latenciesMs, elapsedMs, cpuMsPerRequest });
    }
    return figures;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const client = new HttpClient(CONCURRENCY);
  try {
    const all: Figures[] = [];
    for (const stack of STACKS) all.push(...(await measureStack(stack, client)));
    const cpuOf = (stack: string, route: string) =>
      all.find((each) => each.stack === stack && each.route === route)!.cpuMsPerRequest;
    printTable(
      `http layer: ${REQUESTS} requests per route, ${CONCURRENCY} at a time, each stack in its own process, answers from memory`,
      all.map((each) => {
        const { p50, p99 } = summarize(each.latenciesMs);
        return {
          stack: each.stack,
          route: each.route,
          'req/s': Math.round((REQUESTS / each.elapsedMs) * 1000),
          'p50 ms': Number(p50.toFixed(2)),
          'p99 ms': Number(p99.toFixed(2)),
          'CPU ms/req': Number(each.cpuMsPerRequest.toFixed(3)),
          'CPU / bare': Number((each.cpuMsPerRequest / cpuOf('bare', each.route)).toFixed(2)),
          'CPU / today': Number((each.cpuMsPerRequest / cpuOf(TODAY, each.route)).toFixed(2)),
        };
      }),
    );
  } finally {
    client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
