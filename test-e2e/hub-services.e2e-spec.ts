/**
 * Every hub service boots on its own schema with health, readiness, metrics and OpenAPI, and
 * creates its streams with the replicas it is given (three on the suite's cluster run).
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess, type InProcessService, type ServiceConfig } from '@careen/service';
import { STREAMS } from '@careen/contracts';
import { connectBus } from '@careen/bus';
import { HUB_SERVICES } from '@careen/devstack';
import { http, useTestInfra, withClient } from '@careen/testing';

describe('the hub services', () => {
  const infra = useTestInfra();
  const services: InProcessService<ServiceConfig>[] = [];

  beforeAll(async () => {
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    services.push(exchange);
    const hub = { CAREEN_EXCHANGE_URL: exchange.url };
    services.push(
      await startServiceInProcess(agbotService, infra, hub),
      await startServiceInProcess(maintenanceSessionService, infra, hub),
      await startServiceInProcess(deploymentOrchestratorService, infra, hub),
      await startServiceInProcess(notifierService, infra, hub),
    );
  });

  afterAll(async () => {
    for (const service of services.reverse()) await service.close();
  });

  it('each answers health, readiness, metrics and its OpenAPI description', async () => {
    for (const service of services) {
      expect((await http(service.url, 'GET', '/healthz')).status).toBe(200);
      expect((await http(service.url, 'GET', '/readyz')).body).toEqual({
        status: 'ready',
        checks: { database: 'ok', bus: 'ok' },
      });
      expect((await http(service.url, 'GET', '/metrics')).body).toContain('process_cpu_user_seconds_total');
      const openapi = await http(service.url, 'GET', '/docs/openapi.json');
      expect(openapi.body.paths['/v1/whoami']).toBeDefined();
    }
  });

  it('creates every stream with the replicas it is given', async () => {
    const bus = await connectBus({ url: infra.natsUrl, name: 'replicas-test' });
    try {
      for (const stream of Object.values(STREAMS)) {
        const info = await bus.jsm.streams.info(stream.name);
        expect([stream.name, info.config.num_replicas]).toEqual([stream.name, infra.natsStreamReplicas]);
        // On a cluster, each replica is a member of its own: the stream outlives a node.
        expect(info.cluster?.replicas ?? []).toHaveLength(infra.natsStreamReplicas - 1);
      }
    } finally {
      await bus.close();
    }
  });

  it('each describes every operation of its OpenAPI with a summary', async () => {
    for (const service of services) {
      const { paths } = (await http(service.url, 'GET', '/docs/openapi.json')).body as {
        paths: Record<string, Record<string, { summary?: string }>>;
      };
      expect(Object.keys(paths)).toContain('/v1/whoami');
      const unsummarized = Object.entries(paths).flatMap(([route, operations]) =>
        Object.entries(operations)
          .filter(([, operation]) => !operation.summary?.trim())
          .map(([method]) => `${method.toUpperCase()} ${route}`),
      );
      expect({ service: service.url, unsummarized }).toEqual({ service: service.url, unsummarized: [] });
    }
  });

  it("describes the agbot's FleetLock routes, header and body included", async () => {
    const agbot = services[1]!;
    const { paths } = (await http(agbot.url, 'GET', '/docs/openapi.json')).body;
    for (const route of ['/v1/pre-reboot', '/v1/steady-state']) {
      expect(paths[route].post).toMatchObject({
        tags: ['fleetlock'],
        parameters: [expect.objectContaining({ name: 'fleet-lock-protocol', in: 'header', required: true })],
        requestBody: {
          content: {
            'application/json': {
              schema: expect.objectContaining({ required: ['client_params'] }),
            },
          },
        },
      });
    }
  });

  it('each owns a schema of its own, migrated, with its outbox', async () => {
    const tables = await withClient(infra.databaseUrl, async (client) => {
      const result = await client.query<{ schema: string; table: string }>(
        `SELECT table_schema AS schema, table_name AS table FROM information_schema.tables
         WHERE table_name IN ('migrations', 'outbox') ORDER BY 1, 2`,
      );
      return result.rows.map((row) => `${row.schema}.${row.table}`);
    });
    for (const { schema } of HUB_SERVICES) {
      expect(tables).toEqual(expect.arrayContaining([`${schema}.migrations`, `${schema}.outbox`]));
    }
  });

  it('each refuses requests without credentials, in the common error shape', async () => {
    for (const service of services) {
      const response = await http(service.url, 'GET', '/v1/whoami');
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
  });
});
