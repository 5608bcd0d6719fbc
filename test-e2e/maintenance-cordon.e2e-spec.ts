/**
 * The cordon a session puts on a host, given again after an attempt whose end was lost (the
 * service or its database went away between the cordon and its record), on the real exchange
 * and the maintenance schema: the host is still given back after the session, while a host an
 * operator had cordoned before stays cordoned.
 */
import { exchangeService } from '@careen/exchange/src/exchange.service';
import {
  ExchangeClient,
  startServiceInProcess,
  type InProcessService,
  type ServiceConfig,
} from '@careen/service';
import { http, ROOT_PASSWORD, seededRoot, seedExchange, useTestInfra } from '@careen/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import {
  type DriverCommand,
  type SessionRecord,
} from '@careen/maintenance-session/src/sessions/session-record';
import { SessionStore } from '@careen/maintenance-session/src/sessions/session-store';
import { CommandRunner } from '@careen/maintenance-session/src/driver/command-runner';

describe('carrying out a cordon again', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ServiceConfig>;
  let store: SessionStore;
  let runner: CommandRunner;

  const schedulable = async (node: string) =>
    (await http(exchange.url, 'GET', `/v1/orgs/acme/nodes/${node}`, { auth: seededRoot })).body.schedulable;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, { acme: { nodes: ['n1', 'n2'] } });
    // The service migrates its schema; its driver leaves alone a session that is closed.
    const maintenance = await startServiceInProcess(maintenanceSessionService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_URL: 'http://127.0.0.1:9',
      CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    store = new SessionStore(maintenance.app.get(DataSource));
    runner = new CommandRunner(
      new ExchangeClient(exchange.url, { org: 'root', username: 'root', password: ROOT_PASSWORD }),
      store,
      { agbotUrl: 'http://127.0.0.1:9', slotLeaseSeconds: 60 },
    );
  });

  /** A session over `hosts`, stored as closed so that only the test carries out its commands. */
  async function session(hosts: string[]): Promise<SessionRecord> {
    const record: SessionRecord = {
      id: randomUUID(),
      org: 'acme',
      createdBy: 'acme/ada',
      createdAt: new Date(),
      updatedAt: new Date(),
      state: 'MAINTENANCE_DONE',
      paused: false,
      hostAction: { kind: 'manual' },
      metadata: {},
      plan: {
        hosts: hosts.map((id) => ({ id, haGroup: null })),
        instances: [],
        projects: [],
        actionsAt: new Date().toISOString(),
        maxParallelHosts: 1,
      },
      progress: { state: 'MAINTENANCE_DONE', hosts: {}, asks: [] },
      capabilityKey: 'k'.repeat(32),
      closedAt: new Date(),
    };
    // Stored and closed in one transaction: the service's driver only moves sessions not closed.
    await store.manager.transaction(async (manager) => {
      await store.insert(manager, record);
      await store.close(manager, record.id);
    });
    return record;
  }

  /** Gives `command` and carries out the pending one, `times` over, recording only the last. */
  async function carryOut(record: SessionRecord, command: DriverCommand, times = 1): Promise<void> {
    await store.addCommands(store.manager, record.id, [command]);
    for (let attempt = 1; attempt <= times; attempt++) {
      const pending = (await store.pendingCommands(record.id)).find(
        (each) => each.command.kind === command.kind,
      )!;
      const outcome = await runner.run(record, pending);
      expect(outcome.done).toBe(true);
      if (attempt === times && outcome.done)
        await store.commandCarriedOut(store.manager, pending.id, outcome.result);
    }
  }

  it("gives the host back when the cordon was made twice, the first time's end lost", async () => {
    const record = await session(['n1']);
    await carryOut(record, { kind: 'cordon', host: 'n1' }, 2);
    expect(await schedulable('n1')).toBe(false);

    await carryOut(record, { kind: 'uncordon', host: 'n1' });
    expect(await schedulable('n1')).toBe(true);
  });

  it('leaves a host an operator had cordoned cordoned after the session', async () => {
    expect(
      (
        await http(exchange.url, 'PATCH', '/v1/orgs/acme/nodes/n2', {
          auth: seededRoot,
          body: { schedulable: false },
        })
      ).status,
    ).toBe(200);
    const record = await session(['n2']);
    await carryOut(record, { kind: 'cordon', host: 'n2' }, 2);
    await carryOut(record, { kind: 'uncordon', host: 'n2' });
    expect(await schedulable('n2')).toBe(false);
  });
});
