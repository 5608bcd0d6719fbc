/**
 * `npm run bench -- upgrade-lock [clients] [seconds]`: the agbot's upgrade semaphore under
 * concurrent HTTP clients. 10,000 nodes in 2,500 HA groups are seeded into the agbot's mirror;
 * each client acts for one node at a time (as an agent does): POST …/upgrade and, when granted,
 * DELETE it. Decisions (answers to POST) per second, p50/p99 latency, and violations of
 * invariant 1 replayed from the grant history (must be 0), next to a raw loop over the same
 * database with the same concurrency: BEGIN; pg_advisory_xact_lock; SELECT; INSERT; COMMIT
 * (and a DELETE after each insert), with Postgres's CPU per decision on each path; and HTTP again
 * with the org's disruption gate configured (a window, a freeze, a 10 % budget). The agbot
 * that answers HTTP runs in a process of its own, as deployed; the clients, the exchange (which
 * only serves its key set) and a second agbot replica (for the in-process figure, the seeding
 * and the history) share this one.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { findViolations, readTimeline } from '@careen/agbot/src/upgrades/upgrade-timeline';
import { UpgradeSemaphore } from '@careen/agbot/src/upgrades/upgrade-semaphore';
import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer } from '@careen/auth';
import { SigningKeyStore } from '@careen/exchange/src/keys/signing-key.store';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import { Agent, request } from 'node:http';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { startBenchStack, type BenchStack } from './support/bench-stack';
import { cpuSeconds, startServiceProcess } from './support/service-process';
import { printTable, summarize } from './support/stats';

const CLIENTS = Number(process.argv[2] ?? 64);
const SECONDS = Number(process.argv[3] ?? 10);
const NODES = 10_000;
const GROUPS = 2_500;
/** The agbot's connection pool (its DataSource default); the raw loop gets the same. */
const POOL_SIZE = 10;

const nodeId = (i: number) => `node-${i}`;
const groupOf = (i: number) => `group-${i % GROUPS}`;

interface RunFigures {
  decisions: number;
  granted: number;
  latenciesMs: number[];
  elapsedMs: number;
  /** CPU seconds Postgres (all its processes) used over the run. */
  postgresCpuS: number;
}

/** Runs `clients` loops for `seconds`; each decides for a node no other loop is driving. */
async function drive(
  stack: BenchStack,
  decide: (node: number) => Promise<{ granted: boolean; ms: number }>,
): Promise<RunFigures> {
  const driven = new Set<number>();
  const figures: RunFigures = { decisions: 0, granted: 0, latenciesMs: [], elapsedMs: 0, postgresCpuS: 0 };
  const postgresBefore = stack.cpuSeconds().postgres;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        let node = Math.floor(Math.random() * NODES);
        while (driven.has(node)) node = Math.floor(Math.random() * NODES);
        driven.add(node);
        try {
          const { granted, ms } = await decide(node);
          figures.decisions++;
          if (granted) figures.granted++;
          figures.latenciesMs.push(ms);
        } finally {
          driven.delete(node);
        }
      }
    }),
  );
  figures.elapsedMs = performance.now() - started;
  figures.postgresCpuS = stack.cpuSeconds().postgres - postgresBefore;
  return figures;
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const exchange = await startServiceInProcess(exchangeService, stack, {
    CAREEN_ROOT_PASSWORD: 'bench-password',
  });
  const agbot = await startServiceInProcess<AgbotConfig>(agbotService, stack, {
    CAREEN_EXCHANGE_URL: exchange.url,
  });
  const served = await startServiceProcess('agbot', {
    CAREEN_DATABASE_URL: stack.databaseUrl,
    CAREEN_NATS_URL: stack.natsUrl,
    CAREEN_EXCHANGE_URL: exchange.url,
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS + 8 });
  const pool = new Pool({ connectionString: stack.databaseUrl, max: POOL_SIZE });
  try {
    const dataSource = agbot.app.get(DataSource);
    const ids = Array.from({ length: NODES }, (_, i) => nodeId(i));
    await dataSource.query(
      `INSERT INTO agbot.nodes (org, id, ha_group, data, change_id)
       SELECT 'bench', id, grp, jsonb_build_object('org', 'bench', 'id', id, 'haGroup', grp), 1
       FROM unnest($1::text[], $2::text[]) AS s(id, grp)`,
      [ids, ids.map((_, i) => groupOf(i))],
    );
    const issuer = new TokenIssuer(exchange.app.get(SigningKeyStore).current(), {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: 3600,
    });
    const tokens = await Promise.all(
      ids.map(async (node) => (await issuer.issue({ kind: 'node', org: 'bench', node })).accessToken),
    );

    const call = (method: string, path: string, token: string, body?: object) =>
      new Promise<number>((resolve, reject) => {
        const outgoing = request(
          new URL(path, served.url),
          {
            method,
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        outgoing.on('error', reject);
        outgoing.end(body ? JSON.stringify(body) : undefined);
      });

    // Raw: the bare transaction the semaphore is built on, on a table of its own.
    await pool.query(
      'CREATE TABLE public.raw_holders (grp text NOT NULL, node text NOT NULL, PRIMARY KEY (grp, node))',
    );
    const raw = await drive(stack, async (node) => {
      const started = performance.now();
      const client = await pool.connect();
      let granted = false;
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, $2))', [
          'bench',
          groupOf(node),
        ]);
        const { rows } = await client.query('SELECT node FROM public.raw_holders WHERE grp = $1', [
          groupOf(node),
        ]);
        if (rows.length === 0) {
          await client.query('INSERT INTO public.raw_holders (grp, node) VALUES ($1, $2)', [
            groupOf(node),
            nodeId(node),
          ]);
          granted = true;
        }
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const ms = performance.now() - started;
      if (granted)
        await pool.query('DELETE FROM public.raw_holders WHERE grp = $1 AND node = $2', [
          groupOf(node),
          nodeId(node),
        ]);
      return { granted, ms };
    });

    const statuses = new Map<number, number>();
    const cpuBefore = cpuSeconds(served.child.pid!);
    const overHttp = async (node: number) => {
      const path = `/v1/orgs/bench/nodes/${nodeId(node)}/upgrade`;
      const token = tokens[node];
      if (token === undefined) throw new Error(`no token was issued for node ${node}`);
      const started = performance.now();
      const status = await call('POST', path, token, { managementPolicy: 'agents-2' });
      const ms = performance.now() - started;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 200) await call('DELETE', path, token);
      return { granted: status === 200, ms };
    };
    const http = await drive(stack, overHttp);
    const agbotCpu = (cpuSeconds(served.child.pid!) - cpuBefore) / (http.elapsedMs / 1000);

    // The same again with the org's disruption gate configured: a window open all run long over
    // every node, a freeze that covers none now, and a budget of 10 % of the org (counted over
    // all 10,000 nodes for each grant).
    const hourAgo = new Date(Date.now() - 3_600_000);
    await dataSource.query(
      `INSERT INTO agbot.mirrored_resources (org, resource, id, data, change_id) VALUES
         ('bench', 'window', 'all-day', $1, 1), ('bench', 'freeze', 'next-year', $2, 1),
         ('bench', 'budget', 'tenth', $3, 1)`,
      [
        JSON.stringify({
          org: 'bench',
          name: 'all-day',
          selector: {},
          days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
          start: hourAgo.toISOString().slice(11, 16),
          durationMinutes: 23 * 60,
          cutoffMinutes: 0,
          timeZone: 'UTC',
        }),
        JSON.stringify({
          org: 'bench',
          name: 'next-year',
          selector: {},
          from: new Date(Date.now() + 365 * 86_400_000).toISOString(),
          until: new Date(Date.now() + 380 * 86_400_000).toISOString(),
        }),
        JSON.stringify({ org: 'bench', name: 'tenth', selector: {}, maxUnavailable: '10%' }),
      ],
    );
    const gatedCpuBefore = cpuSeconds(served.child.pid!);
    const gated = await drive(stack, overHttp);
    const gatedCpu = (cpuSeconds(served.child.pid!) - gatedCpuBefore) / (gated.elapsedMs / 1000);
    await dataSource.query("DELETE FROM agbot.mirrored_resources WHERE org = 'bench'");

    // The same semaphore called in-process: what the HTTP layer (Nest, JSON, token checks) adds.
    const semaphore = agbot.app.get(UpgradeSemaphore);
    const direct = await drive(stack, async (node) => {
      const started = performance.now();
      const result = await semaphore.acquire({
        org: 'bench',
        node: nodeId(node),
        kind: 'agent-upgrade',
        managementPolicy: 'agents-2',
        leaseSeconds: 120,
        fleetLockSlots: 1,
      });
      const ms = performance.now() - started;
      if (result.outcome === 'granted')
        await semaphore.release({ org: 'bench', node: nodeId(node), kind: 'agent-upgrade' });
      return { granted: result.outcome === 'granted', ms };
    });

    const timeline = await readTimeline(dataSource.manager);
    const violations = findViolations(timeline, 1);
    const rate = (figures: RunFigures) => figures.decisions / (figures.elapsedMs / 1000);
    const postgresMs = (figures: RunFigures) => (figures.postgresCpuS * 1000) / figures.decisions;
    const httpLatency = summarize(http.latenciesMs);
    const rawLatency = summarize(raw.latenciesMs);
    printTable(
      `upgrade-lock: ${NODES} nodes in ${GROUPS} HA groups, ${CLIENTS} concurrent clients, ${SECONDS}s each, pool ${POOL_SIZE}`,
      [
        {
          path: `agbot HTTP, own process (POST, DELETE when granted; agbot CPU ${Math.round(agbotCpu * 100)}%)`,
          'decisions/s': rate(http),
          granted: http.granted,
          'p50 ms': httpLatency.p50,
          'p99 ms': httpLatency.p99,
          violations: violations.length,
          'Postgres CPU ms/decision': postgresMs(http),
        },
        {
          path: `agbot HTTP with window, freeze and 10 % budget (agbot CPU ${Math.round(gatedCpu * 100)}%)`,
          'decisions/s': rate(gated),
          granted: gated.granted,
          'p50 ms': summarize(gated.latenciesMs).p50,
          'p99 ms': summarize(gated.latenciesMs).p99,
          violations: '(same history)',
          'Postgres CPU ms/decision': postgresMs(gated),
        },
        {
          path: 'semaphore in-process (no HTTP)',
          'decisions/s': rate(direct),
          granted: direct.granted,
          'p50 ms': summarize(direct.latenciesMs).p50,
          'p99 ms': summarize(direct.latenciesMs).p99,
          violations: '(same history)',
          'Postgres CPU ms/decision': postgresMs(direct),
        },
        {
          path: 'raw BEGIN; lock; SELECT; INSERT; COMMIT',
          'decisions/s': rate(raw),
          granted: raw.granted,
          'p50 ms': rawLatency.p50,
          'p99 ms': rawLatency.p99,
          violations: '-',
          'Postgres CPU ms/decision': postgresMs(raw),
        },
        {
          path: 'ratio to raw',
          'decisions/s': rate(http) / rate(raw),
          'p50 ms': httpLatency.p50 / rawLatency.p50,
        },
        {
          path: 'gated HTTP to HTTP',
          'decisions/s': rate(gated) / rate(http),
          'p50 ms': summarize(gated.latenciesMs).p50 / httpLatency.p50,
        },
      ],
    );
    process.stdout.write(
      `HTTP answers: ${[...statuses].map(([status, count]) => `${status}×${count}`).join(', ')}; history events checked: ${timeline.length}\n`,
    );
    if (violations.length > 0) {
      process.stdout.write(`violations: ${JSON.stringify(violations.slice(0, 5))}\n`);
      process.exitCode = 1;
    }
  } finally {
    agent.destroy();
    await served.stop();
    await pool.end();
    await agbot.close();
    await exchange.close();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
