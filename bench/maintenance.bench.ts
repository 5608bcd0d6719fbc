/**
 * `npm run bench -- maintenance [hosts] [projects] [parallel]`: one maintenance session over 100
 * hosts (in HA groups of two) with 20 projects of 10 instances each, every project answered at
 * once by a reference VNF manager on the bus, `host_action: simulated` of 0 s, on the real
 * exchange, agbot and maintenance service. Prints the session's total time, the overhead per
 * host (time beyond the host action and the VNF managers' own reply time), events per second and
 * reply latency p50/p99, next to a raw NATS request-reply round trip measured in the same run.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { connectBus } from '@careen/bus';
import { type MaintenanceProjectEventPayload } from '@careen/contracts';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { startServiceInProcess } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import { startBenchStack } from './support/bench-stack';
import { printTable, summarize } from './support/stats';

const HOSTS = Number(process.argv[2] ?? 100);
const PROJECTS = Number(process.argv[3] ?? 20);
const PARALLEL = Number(process.argv[4] ?? 1);
const INSTANCES = 10;
/** Nodes outside the session that take the instances moved off the hosts. */
const SPARES = 20;
const ROOT_PASSWORD = 'bench-password';
const RAW_ROUND_TRIPS = 2_000;

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  const infra = { databaseUrl: stack.databaseUrl, natsUrl: stack.natsUrl };
  const logger = createLogger('bench', { level: 'error' });
  const exchange = await startServiceInProcess(exchangeService, infra, {
    CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
  });
  const auth = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(new URL(path, base), {
      method,
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>);
  };
  const bus = await connectBus({ url: stack.natsUrl, name: 'bench' });
  const managers: ReferenceVnfManager[] = [];
  try {
    await call(exchange.url, 'POST', '/v1/orgs', { id: 'bench' });
    const hosts = Array.from({ length: HOSTS }, (_, i) => `host-${i}`);
    const spares = Array.from({ length: SPARES }, (_, i) => `spare-${i}`);
    for (const [index, id] of [...hosts, ...spares].entries())
      await call(exchange.url, 'PUT', `/v1/orgs/bench/nodes/${id}`, {
        token: `${id}-token-0123456789`,
        rack: `r${index % 10}`,
      });
    for (let group = 0; group < HOSTS / 2; group++)
      await call(exchange.url, 'POST', '/v1/orgs/bench/hagroups', {
        name: `group-${group}`,
        members: [hosts[2 * group], hosts[2 * group + 1]],
      });
    await call(exchange.url, 'PUT', '/v1/orgs/bench/services/web', {
      url: 'bench.web',
      version: '1.0.0',
      arch: 'amd64',
      runtime: {},
    });
    // The spares take nothing until every project's instances are on the hosts.
    for (const spare of spares)
      await call(exchange.url, 'PATCH', `/v1/orgs/bench/nodes/${spare}`, { schedulable: false });
    for (let project = 0; project < PROJECTS; project++)
      await call(exchange.url, 'PUT', `/v1/orgs/bench/deployment-policies/app-${project}`, {
        project: `project-${project}`,
        service: { org: 'bench', url: 'bench.web', versionRange: '>=1.0.0' },
        placement: { mode: 'replicas', replicas: INSTANCES },
      });
    const agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    const placed = async () => {
      let count = 0;
      for (const host of hosts)
        count += (await call(exchange.url, 'GET', `/v1/orgs/bench/nodes/${host}/workloads`))!.total as number;
      return count;
    };
    for (let waited = 0; (await placed()) < PROJECTS * INSTANCES; waited++) {
      if (waited > 120) throw new Error('the agbot did not place every instance within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    for (const spare of spares)
      await call(exchange.url, 'PATCH', `/v1/orgs/bench/nodes/${spare}`, { schedulable: true });
    const maintenance = await startServiceInProcess(maintenanceSessionService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_URL: agbot.url,
      CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });

    // The VNF managers: each answers at once; their own time is what each answer took them.
    const ownTimeMs: number[] = [];
    for (let project = 0; project < PROJECTS; project++) {
      const took = new Map<MaintenanceProjectEventPayload, number>();
      const manager = new ReferenceVnfManager({
        bus,
        project: `project-${project}`,
        replyVia: 'bus',
        answer: (event) => {
          took.set(event, performance.now());
          return 'ack';
        },
        observe: (event, reply) => {
          const started = took.get(event);
          if (reply && started !== undefined) ownTimeMs.push(performance.now() - started);
          took.delete(event);
        },
        logger,
      });
      await manager.start();
      managers.push(manager);
    }

    // Raw baseline: a NATS request-reply round trip on the same server.
    const responder = bus.nc.subscribe('bench.echo', {
      callback: (_error, message) => {
        message.respond(message.data);
      },
    });
    const rawMs: number[] = [];
    for (let i = 0; i < RAW_ROUND_TRIPS; i++) {
      const started = performance.now();
      await bus.nc.request('bench.echo', '{"state":"ACK_MAINTENANCE"}', { timeout: 5_000 });
      rawMs.push(performance.now() - started);
    }
    responder.unsubscribe();

    const started = performance.now();
    const session = (await call(maintenance.url, 'POST', '/v1/maintenance', {
      org: 'bench',
      hosts,
      host_action: { kind: 'simulated', seconds: 0 },
      max_parallel_hosts: PARALLEL,
      reply_timeout_seconds: 120,
    }))!;
    // Watched through the list, which leaves the timelines out: reading a timeline of a thousand
    // entries ten times a second would load the service the bench measures.
    for (;;) {
      const { items } = (await call(maintenance.url, 'GET', '/v1/maintenance?org=bench')) as {
        items: { session_id: string; state: string }[];
      };
      const state = items.find((each) => each.session_id === session.session_id)?.state;
      if (state === 'MAINTENANCE_DONE' || state === 'MAINTENANCE_FAILED') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const totalMs = performance.now() - started;
    const view = (await call(maintenance.url, 'GET', `/v1/maintenance/${String(session.session_id)}`))!;
    if (view.state !== 'MAINTENANCE_DONE') throw new Error(`the session failed: ${String(view.failure)}`);

    const projects = view.projects as {
      asks: { asked_at: string; answered_at: string | null; answer: string }[];
    }[];
    const asks = projects.flatMap((project) => project.asks);
    const latencyMs = asks
      .filter((ask) => ask.answered_at)
      .map((ask) => Date.parse(ask.answered_at!) - Date.parse(ask.asked_at));
    const timeline = view.timeline as { kind: string }[];
    const sent = timeline.filter((entry) => entry.kind === 'sent').length;
    const vnfmMs = ownTimeMs.reduce((sum, ms) => sum + ms, 0);
    // Hosts go PARALLEL at a time: each host's share of the wall time, less the VNF managers' own.
    const overheadPerHostMs = (totalMs * PARALLEL - vnfmMs) / HOSTS;
    const latency = summarize(latencyMs);
    const raw = summarize(rawMs);
    printTable(
      `maintenance session: ${HOSTS} hosts, ${PROJECTS} projects × ${INSTANCES} instances, ${PARALLEL} host(s) at a time, simulated 0 s`,
      [
        {
          'total s': totalMs / 1000,
          'overhead per host ms': overheadPerHostMs,
          'events sent': sent,
          'events/s': sent / (totalMs / 1000),
          replies: latencyMs.length,
          'not acked': asks.filter((ask) => ask.answer !== 'ack').length,
          'VNF managers own ms (sum)': vnfmMs,
        },
      ],
    );
    printTable('reply latency (asked → reply taken) next to a raw NATS request-reply', [
      { path: 'maintenance reply', 'p50 ms': latency.p50, 'p99 ms': latency.p99, 'max ms': latency.max },
      { path: 'raw NATS request-reply', 'p50 ms': raw.p50, 'p99 ms': raw.p99, 'max ms': raw.max },
      {
        path: 'ratio (raw / maintenance)',
        'p50 ms': raw.p50 / latency.p50,
        'p99 ms': raw.p99 / latency.p99,
        'max ms': raw.max / latency.max,
      },
    ]);
    await maintenance.close();
    await agbot.close();
  } finally {
    for (const manager of managers) await manager.stop();
    await bus.close();
    await exchange.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
