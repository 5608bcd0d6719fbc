/**
 * Every hub service run as two replicas on one Postgres and one NATS, each pair behind one
 * address (a round-robin proxy, as a Kubernetes Service is). Both replicas of a pair answer;
 * each leader role (a service's controller or driver, each outbox relay) is held by exactly one
 * replica, which the `careen_leader` metric shows; and when every leader is killed with SIGKILL
 * the standbys take their roles over within the bound docs/operations.md states, while the
 * services stay reachable at their one address.
 */
import { eventually, useTestInfra } from '@careen/testing';
import { get as httpGet } from 'node:http';
import { type KillableService } from './support/killable-service';
import { startReplicated, type ReplicatedService } from './support/replicated-service';

const ROOT_PASSWORD = 'replicas-root-password';
/** Stated in docs/operations.md: a standby takes a role over within this after its leader dies. */
const TAKEOVER_BOUND_MS = 5_000;

/** Each service's leader roles. */
const ROLES: Record<string, string[]> = {
  exchange: ['careen:outbox-relay:exchange'],
  agbot: ['careen:agbot:controller', 'careen:outbox-relay:agbot'],
  'maintenance-session': ['careen:maintenance-session:driver', 'careen:outbox-relay:maintenance_session'],
  'deployment-orchestrator': [
    'careen:deployment-orchestrator:driver',
    'careen:outbox-relay:deployment_orchestrator',
  ],
  notifier: ['careen:outbox-relay:notifier'],
};

/** A GET on a connection of its own, so that a proxy sees each request as a new connection. */
function getStatus(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** The roles a replica holds now, from its own /metrics. */
async function rolesHeld(replica: KillableService): Promise<string[]> {
  const { body } = await getStatus(`${replica.url}/metrics`);
  return [...body.matchAll(/^careen_leader\{[^}]*role="([^"]+)"[^}]*\} 1$/gm)]
    .map(([, role]) => role!)
    .sort();
}

type Pair = ReplicatedService;

describe('every hub service as two replicas behind one address', () => {
  const infra = useTestInfra();
  const pairs: Pair[] = [];
  const urls: Record<string, string> = {};

  async function startPair(name: string, env: () => Record<string, string>): Promise<Pair> {
    const pair = await startReplicated(
      name,
      2,
      () => ({
        CAREEN_DATABASE_URL: infra.databaseUrl,
        CAREEN_NATS_URL: infra.natsUrl,
        CAREEN_NATS_STREAM_REPLICAS: String(infra.natsStreamReplicas),
        ...env(),
      }),
      // Killed at the end (before the infra goes), even if one of them does not start.
      (replicas) =>
        infra.track(async () => void (await Promise.all(replicas.map((replica) => replica.kill())))),
    );
    pairs.push(pair);
    urls[name] = pair.proxy.url;
    return pair;
  }

  beforeAll(async () => {
    await startPair('exchange', () => ({ CAREEN_ROOT_PASSWORD: ROOT_PASSWORD }));
    const hub = () => ({ CAREEN_EXCHANGE_URL: urls.exchange! });
    await startPair('agbot', () => ({ ...hub(), CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD }));
    await Promise.all([
      startPair('maintenance-session', () => ({
        ...hub(),
        CAREEN_AGBOT_URL: urls.agbot!,
        CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      })),
      startPair('deployment-orchestrator', () => ({
        ...hub(),
        CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      })),
      startPair('notifier', () => ({ ...hub(), CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD })),
    ]);
  }, 180_000);

  // The replicas themselves are killed by the closer each pair registered.
  afterAll(async () => {
    for (const pair of pairs) await pair.proxy.close();
  });

  it('answers at one address from both replicas of each service', async () => {
    for (const pair of pairs) {
      for (let request = 0; request < 4; request++)
        expect([pair.name, (await getStatus(`${pair.proxy.url}/readyz`)).status]).toEqual([pair.name, 200]);
      expect([pair.name, [...pair.proxy.connections.values()].every((count) => count >= 2)]).toEqual([
        pair.name,
        true,
      ]);
    }
  });

  it('gives each leader role to one replica, and to the standby within the bound when the leader is killed', async () => {
    const leaders = new Map<Pair, Map<string, KillableService>>();
    for (const pair of pairs) {
      const byRole = new Map<string, KillableService>();
      await eventually(
        async () => {
          const held = await Promise.all(pair.replicas.map(rolesHeld));
          expect([pair.name, held.flat().sort()]).toEqual([pair.name, [...ROLES[pair.name]!].sort()]);
          held.forEach((roles, index) => roles.forEach((role) => byRole.set(role, pair.replicas[index]!)));
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      leaders.set(pair, byRole);
    }

    // Kill the replica that holds each service's first role, all services at once.
    const killed = pairs.map((pair) => leaders.get(pair)!.get(ROLES[pair.name]![0]!)!);
    const killedAt = Date.now();
    await Promise.all(killed.map((replica) => replica.kill()));
    const takeovers = await Promise.all(
      pairs.map(async (pair, index) => {
        const survivor = pair.replicas.find((replica) => replica !== killed[index])!;
        await eventually(
          async () =>
            expect([pair.name, await rolesHeld(survivor)]).toEqual([
              pair.name,
              [...ROLES[pair.name]!].sort(),
            ]),
          { timeoutMs: 30_000, intervalMs: 50 },
        );
        return [pair.name, Date.now() - killedAt] as const;
      }),
    );
    for (const [name, ms] of takeovers) expect([name, ms < TAKEOVER_BOUND_MS]).toEqual([name, true]);

    // Each service still answers at its one address, from the survivor.
    for (const pair of pairs)
      expect([pair.name, (await getStatus(`${pair.proxy.url}/readyz`)).status]).toEqual([pair.name, 200]);

    // A killed replica started again stands by.
    await killed[0]!.start();
    expect(await rolesHeld(killed[0]!)).toEqual([]);
  });
});
