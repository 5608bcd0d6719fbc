/**
 * A scripted day of operations across the hub, then its audit trail as an auditor reads it with
 * `careen audit`: exactly the people's and the pipeline's records, in order, none twice, each
 * with the credential it came by; Careen's own work beside them under `careen:<service>`; and
 * `careen audit verify` passing, then naming the record an edit in the database broke.
 */
import { runCli } from '@careen/cli/src/run-cli';
import {
  bearer,
  eventually,
  http,
  seededRoot,
  seededUser,
  seedExchange,
  useTestInfra,
  withClient,
  type Credentials,
} from '@careen/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllServices } from './support/all-services';
import { publishAgentPackage } from './support/agent-packages';

interface AuditRecord {
  seq: number;
  at: string;
  actor: string;
  via: string | null;
  action: string;
  target: string;
}

describe('the audit trail of a day of operations', () => {
  const infra = useTestInfra();
  const ada = seededUser('acme', 'ada');
  const otto = seededUser('acme', 'otto');
  let services: Record<string, string>;
  let home: string;
  let dayStart: string;

  const call = (service: string, method: string, path: string, auth: Credentials, body?: unknown) =>
    http(services[service]!, method, path, { auth, body });
  const careen = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {
        HOME: home,
        CAREEN_CONFIG_DIR: join(home, 'careen'),
        CAREEN_EXCHANGE_URL: services.exchange!,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ada',
        CAREEN_PASSWORD: 'ada-password',
      },
    });
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    services = await startAllServices(infra);
    home = await mkdtemp(join(tmpdir(), 'careen-audit-'));
    await seedExchange(services.exchange!, {
      acme: { users: { ada: 'orgAdmin', otto: 'operator' }, nodes: ['n1', 'n2'] },
    });
    await publishAgentPackage(services.exchange!, seededRoot, '3.0.0');
    // Everything before, answered already, was setting up; the day starts now.
    dayStart = new Date().toISOString();
  }, 120_000);

  afterAll(() => rm(home, { recursive: true, force: true }));

  it('records every action of the day once, in order, with who and how', async () => {
    /** The answer's body, once it is a success. */
    const succeeds = async <T>(answer: Promise<{ status: number; body: T }>): Promise<T> => {
      const { status, body } = await answer;
      if (status >= 300) throw new Error(`answered ${status}: ${JSON.stringify(body)}`);
      return body;
    };
    // The pipeline's account and key, rotated.
    await succeeds(call('exchange', 'POST', '/v1/orgs/acme/service-accounts', ada, { name: 'release-bot' }));
    const first = await succeeds(
      call('exchange', 'POST', '/v1/orgs/acme/service-accounts/release-bot/keys', ada, {
        scopes: ['rollouts:write'],
      }),
    );
    const rotated = await succeeds(
      call('exchange', 'POST', `/v1/orgs/acme/service-accounts/release-bot/keys/${first.id}/rotate`, ada, {
        overlapSeconds: 60,
      }),
    );
    const key = rotated.key as { id: string; key: string };
    // A strategy, a rollout the pipeline starts, an operator pauses and cancels.
    await succeeds(
      call('deployment-orchestrator', 'POST', '/v1/strategies', ada, {
        name: 'day',
        groups: [{ name: 'first', critical: true, depends_on: [], selectors: [{ node_names: ['n1'] }] }],
      }),
    );
    const rollout = await succeeds(
      call('deployment-orchestrator', 'POST', '/v1/rollouts', bearer(key.key), {
        strategy: 'day',
        version: '3.0.0',
      }),
    );
    await succeeds(call('deployment-orchestrator', 'POST', `/v1/rollouts/${rollout.id}/pause`, otto));
    await succeeds(call('deployment-orchestrator', 'POST', `/v1/rollouts/${rollout.id}/cancel`, otto));
    // A policy published, its failed nodes reset.
    await succeeds(
      call('exchange', 'PUT', '/v1/orgs/acme/management-policies/web', ada, {
        nodes: ['n2'],
        enabled: false,
        agentUpgradePolicy: { atLeastVersion: '3.0.0', duration: 600 },
      }),
    );
    await succeeds(
      call('exchange', 'POST', '/v1/orgs/acme/management-policies/web/reset', otto, { failed: true }),
    );
    // A session for tomorrow, started by the operator and aborted by the admin.
    const session = await succeeds(
      call('maintenance-session', 'POST', '/v1/maintenance', otto, {
        hosts: ['n2'],
        host_action: 'manual',
        actions_at: new Date(Date.now() + 86_400_000).toISOString(),
      }),
    );
    await succeeds(call('maintenance-session', 'DELETE', `/v1/maintenance/${session.session_id}`, ada));

    const people = new Set(['acme/ada', 'acme/otto', 'acme/sa:release-bot']);
    const expected = [
      ['acme/ada', 'password', 'serviceAccount.created', 'serviceAccount/release-bot'],
      ['acme/ada', 'password', 'apiKey.created', `apiKey/${first.id}`],
      ['acme/ada', 'password', 'apiKey.created', `apiKey/${key.id}`],
      ['acme/ada', 'password', 'apiKey.updated', `apiKey/${first.id}`],
      ['acme/ada', 'password', 'strategy.published', 'strategy/day@1'],
      ['acme/sa:release-bot', `key:${key.id}`, 'rollout.started', `rollout/${rollout.id}`],
      ['acme/otto', 'password', 'rollout.paused', `rollout/${rollout.id}`],
      ['acme/otto', 'password', 'rollout.cancelling', `rollout/${rollout.id}`],
      ['acme/ada', 'password', 'managementPolicy.published', 'managementPolicy/web'],
      ['acme/otto', 'password', 'managementPolicy.reset', 'managementPolicy/web'],
      ['acme/otto', 'password', 'session.created', `session/${session.session_id}`],
      ['acme/ada', 'password', 'session.abort', `session/${session.session_id}`],
      ['acme/ada', 'password', 'session.state.MAINTENANCE_FAILED', `session/${session.session_id}`],
    ];
    const dayOf = (records: AuditRecord[]) =>
      records
        .filter((record) => people.has(record.actor))
        .sort((a, b) => a.at.localeCompare(b.at) || a.seq - b.seq)
        .map((record) => [record.actor, record.via, record.action, record.target]);
    const trail = await eventually(
      async () => {
        const listed = await careen(['audit', '--since', dayStart, '--limit', '1000', '-o', 'json']);
        expect(listed.stderr).toBe('');
        const records = (JSON.parse(listed.stdout) as { items: AuditRecord[] }).items;
        expect(dayOf(records)).toEqual(expected);
        return records;
      },
      { timeoutMs: 30_000 },
    );
    // Careen's own work is there too, under its services' names.
    expect(trail.map((record) => [record.actor, record.action])).toContainEqual([
      'careen:deployment-orchestrator',
      'rollout.cancelled',
    ]);
    expect(new Set(trail.map((record) => record.seq)).size).toBe(trail.length);

    const table = await careen(['audit', '--since', dayStart, '--actor', 'acme/otto']);
    expect(table.stdout.split('\n')[0]).toMatch(/^SEQ +AT +ACTOR +VIA +ACTION +TARGET +SOURCE$/);
    expect(table.stdout).toContain('session.created');
    expect(table.stdout).not.toContain('acme/ada');
  });

  it('verifies the chain with careen audit verify, and names the record an edit broke', async () => {
    const verified = await careen(['audit', 'verify']);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toMatch(
      /^the audit trail of org "acme" verifies: \d+ record\(s\) from 1 to \d+, head [0-9a-f]{64}\n$/,
    );

    await withClient(infra.databaseUrl, (client) =>
      client.query(`UPDATE exchange.audit_log SET target = 'apiKey/nothing' WHERE org = 'acme' AND seq = 3`),
    );
    const broken = await careen(['audit', 'verify']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /^error: the audit trail of org "acme" is broken at record 3 \(event [^)]+\): its fields do not give its hash: it was edited; 2 record\(s\) before it chain\n$/,
    );
  });
});
