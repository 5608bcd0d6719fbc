/**
 * The heartbeats the exchange passes on (NodesSeen) move the mirror's nodes forward without
 * waiting for a node's row that another transaction holds: under load, that wait deadlocked
 * against other transactions on those rows.
 */
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { useTestInfra, whileRowsLocked, withClient } from '@careen/testing';
import { type AgbotConfig } from '../agbot.config';
import { agbotService } from '../agbot.service';
import { ExchangeMirror } from './exchange-mirror';

describe('the mirror taking heartbeats', () => {
  const infra = useTestInfra();
  let agbot: InProcessService<AgbotConfig>;
  let mirror: ExchangeMirror;
  const nodes = ['beat-1', 'beat-2', 'beat-3'];

  beforeAll(async () => {
    // No exchange credentials: nothing but this test writes the mirror.
    agbot = await startServiceInProcess(agbotService, infra, { CAREEN_EXCHANGE_URL: 'http://127.0.0.1:9' });
    mirror = agbot.app.get(ExchangeMirror);
    await withClient(infra.databaseUrl, (client) =>
      client.query(
        `INSERT INTO agbot.nodes (org, id, data, change_id)
         SELECT 'acme', id, jsonb_build_object('id', id, 'status', jsonb_build_object('lastHeartbeat', '2026-01-01T00:00:00.000Z')), 1
         FROM unnest($1::text[]) AS id`,
        [nodes],
      ),
    );
  });

  afterAll(() => agbot?.close());

  const heartbeatOf = async (id: string) =>
    ((await mirror.findNode('acme', id)) as { status?: { lastHeartbeat?: string } } | undefined)?.status
      ?.lastHeartbeat;

  it('moves heartbeats forward, never back', async () => {
    expect(await mirror.markSeen('acme', nodes, '2026-01-01T00:01:00.000Z')).toBe(3);
    expect(await mirror.markSeen('acme', nodes, '2026-01-01T00:00:30.000Z')).toBe(0);
    expect(await heartbeatOf('beat-2')).toBe('2026-01-01T00:01:00.000Z');
  });

  it('skips a node whose row another transaction holds, and takes the others without waiting', async () => {
    await whileRowsLocked(
      infra.databaseUrl,
      `SELECT 1 FROM agbot.nodes WHERE org = 'acme' AND id = 'beat-2' FOR UPDATE`,
      async () => {
        // Were the row waited for, this would not settle until the lock ends, past the test's timeout.
        expect(await mirror.markSeen('acme', nodes, '2026-01-01T00:02:00.000Z')).toBe(2);
        expect(await heartbeatOf('beat-1')).toBe('2026-01-01T00:02:00.000Z');
        expect(await heartbeatOf('beat-3')).toBe('2026-01-01T00:02:00.000Z');
      },
    );
    expect(await heartbeatOf('beat-2')).toBe('2026-01-01T00:01:00.000Z');
    // The node's next poll moves it on.
    expect(await mirror.markSeen('acme', ['beat-2'], '2026-01-01T00:02:30.000Z')).toBe(1);
  });
});
