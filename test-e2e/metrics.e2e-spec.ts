/**
 * What the services export to Prometheus, scraped from the real services (exchange, agbot,
 * maintenance service and notifier in this process): the fleet by connectivity, agent version
 * and cordon, the waiting long-polls, each outbox's backlog, each durable consumer's lag and
 * dead letters by reason. Every service's metrics pass Prometheus's own checks (`promtool
 * check metrics`), and the Grafana dashboards under deploy/grafana ask only for metrics some
 * service exports.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { cloudEventHeaders, connectBus } from '@careen/bus';
import { ExchangeChanged } from '@careen/contracts';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess } from '@careen/service';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT_PASSWORD = 'root-password-1';
const ROOT = basic('root', 'root', ROOT_PASSWORD);
const DASHBOARDS = join(__dirname, '..', 'deploy', 'grafana');

const scrape = async (url: string) => (await fetch(`${url}/metrics`)).text();

/** The value of the series `name{…}` whose labels include every one of `labels`. */
function valueOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...(match[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k, v]),
    );
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[4]);
  }
  return undefined;
}

/** What `promtool check metrics` says of a /metrics text: empty when it has nothing to say. */
function promtoolCheck(text: string): Promise<string> {
  // npm test provides promtool (see tools/launcher/src/promtool.ts); a direct jest run needs it on PATH.
  const promtool = process.env.CAREEN_PROMTOOL_BIN ?? 'promtool';
  return new Promise((resolve, reject) => {
    const child = execFile(promtool, ['check', 'metrics'], (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve(`${stdout}${stderr}`);
    });
    child.stdin!.end(text);
  });
}

/** The metric names a /metrics text declares, histograms' series under their own name. */
const declared = (text: string) => [...text.matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name!);

describe('metrics', () => {
  const infra = useTestInfra();
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
    });
    urls.exchange = exchange.url;
    const agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    urls.agbot = agbot.url;
    urls.maintenance = (
      await startServiceInProcess(maintenanceSessionService, infra, {
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_AGBOT_URL: agbot.url,
        CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      })
    ).url;
    urls.notifier = (
      await startServiceInProcess(notifierService, infra, {
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      })
    ).url;
    urls.orchestrator = (
      await startServiceInProcess(deploymentOrchestratorService, infra, {
        CAREEN_EXCHANGE_URL: exchange.url,
        CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      })
    ).url;
  });

  it('counts the fleet by connectivity, agent version and cordon, and the waiting polls', async () => {
    await http(urls.exchange!, 'POST', '/v1/orgs', { auth: ROOT, body: { id: 'metered' } });
    for (const node of ['m1', 'm2'])
      await http(urls.exchange!, 'PUT', `/v1/orgs/metered/nodes/${node}`, {
        auth: ROOT,
        body: { token: `${node}-token-0123456789` },
      });
    await http(urls.exchange!, 'PATCH', '/v1/orgs/metered/nodes/m2', {
      auth: ROOT,
      body: { schedulable: false },
    });

    const text = await scrape(urls.exchange!);
    expect({
      unreported: valueOf(text, 'careen_exchange_nodes', { org: 'metered', connectivity: 'unreported' }),
      online: valueOf(text, 'careen_exchange_nodes', { org: 'metered', connectivity: 'online' }),
      byVersion: valueOf(text, 'careen_exchange_nodes_by_agent_version', {
        org: 'metered',
        agent_version: 'unknown',
      }),
      cordoned: valueOf(text, 'careen_exchange_nodes_cordoned', { org: 'metered' }),
      waiting: valueOf(text, 'careen_exchange_waiting_polls', {}),
    }).toEqual({ unreported: 2, online: undefined, byVersion: 2, cordoned: 1, waiting: 0 });
    // The changes just written went out through the outbox.
    await eventually(async () =>
      expect(valueOf(await scrape(urls.exchange!), 'careen_outbox_backlog', {})).toBe(0),
    );
  });

  it("shows each durable consumer's lag, and a poisoned message as a dead letter with its reason", async () => {
    const before = valueOf(await scrape(urls.agbot!), 'careen_bus_dead_letters_total', {
      consumer: 'agbot-changes',
      reason: 'invalid-message',
    });
    expect(before).toBe(0);
    expect(
      valueOf(await scrape(urls.agbot!), 'careen_bus_consumer_pending', { consumer: 'agbot-changes' }),
    ).toEqual(expect.any(Number));
    const bus = await connectBus({ url: infra.natsUrl, name: 'metrics-test' });
    infra.track(() => bus.close());
    await bus.js.publish(ExchangeChanged.subject('metered', 'node', 'poison'), '{"not": "a change"}', {
      headers: cloudEventHeaders({
        id: 'poison-1',
        type: ExchangeChanged.type,
        source: 'test',
        time: new Date().toISOString(),
      }),
    });
    await eventually(async () =>
      expect(
        valueOf(await scrape(urls.agbot!), 'careen_bus_dead_letters_total', {
          consumer: 'agbot-changes',
          reason: 'invalid-message',
        }),
      ).toBe(1),
    );
  });

  it('has dashboards that ask only for metrics the services export', async () => {
    const exported = new Set((await Promise.all(Object.values(urls).map(scrape))).flatMap(declared));
    const asked = readdirSync(DASHBOARDS)
      .filter((file) => file.endsWith('.json'))
      .flatMap((file) => {
        const dashboard = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as {
          panels: { targets: { expr: string }[] }[];
        };
        return dashboard.panels.flatMap((panel) =>
          panel.targets.flatMap(({ expr }) =>
            [...expr.matchAll(/\b(careen_[a-z0-9_]+)/g)].map(([, name]) => ({
              file,
              metric: name!.replace(/_(bucket|sum|count)$/, ''),
            })),
          ),
        );
      });
    expect(asked.length).toBeGreaterThan(20);
    expect(asked.filter(({ metric }) => !exported.has(metric))).toEqual([]);
  });

  // Last: the series the tests above made are checked too.
  it('names and types every metric of every service as Prometheus expects', async () => {
    for (const [service, url] of Object.entries(urls))
      expect([service, await promtoolCheck(await scrape(url))]).toEqual([service, '']);
    // What it refuses: a gauge named like a counter, as prom-client's defaults had.
    expect(
      await promtoolCheck('# HELP open_total Open things.\n# TYPE open_total gauge\nopen_total 1\n'),
    ).toBe('open_total non-counter metrics should not have "_total" suffix\n');
  });
});
