/**
 * Trove-style single-node upgrades (docs/domain.md, Single-node upgrades) on the real exchange,
 * agbot and orchestrator with simulated agents: one history row per attempt, from the version the
 * node ran to the one asked, through success, a rollback and a package fetched from a mirror (a
 * small real HTTP server) that is checked against the exchange's sha256 all the same; nodes that
 * cannot be upgraded now are refused with the reason.
 */
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, useTestInfra } from '@careen/testing';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  HUB_ROOT,
  orchestratorCall,
  ROLES,
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

interface UpgradeRow {
  id: string;
  node_id: string;
  from_version: string | null;
  to_version: string;
  strategy: string;
  location: string | null;
  state: string;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}

describe('single-node upgrades with history', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let call: ReturnType<typeof orchestratorCall>;
  let mirror: Server;
  const mirrored = new Map<string, Buffer>();
  const mirrorHits: string[] = [];
  const node = ROLES.monitoring[0]!;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
    mirror = createServer((request, response) => {
      mirrorHits.push(request.url ?? '');
      const bytes = mirrored.get(request.url ?? '');
      if (!bytes) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/gzip' }).end(bytes);
    });
    await new Promise<void>((listening) => mirror.listen(0, '127.0.0.1', listening));
  });

  afterAll(async () => {
    await new Promise((closed) => mirror?.close(closed));
    await orchestrator?.close();
    await hub?.close();
  });

  const mirrorUrl = (path: string) => `http://127.0.0.1:${(mirror.address() as AddressInfo).port}${path}`;

  /** The upgrade once it has ended. */
  const finished = (id: string) =>
    eventually(
      async () => {
        const rows = (await call('GET', `/v1/upgrades?node_id=${node}`)).body.items as UpgradeRow[];
        const row = rows.find((each) => each.id === id)!;
        expect(row.finished_at).not.toBeNull();
        return row;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

  it('upgrades one node and keeps the attempt, then a rollback, as history rows', async () => {
    const asked = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '2.0.0',
      strategy: 'tarball',
    });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({
      node_id: node,
      from_version: '1.0.0',
      to_version: '2.0.0',
      state: 'pending',
    });
    expect(await finished(asked.body.id)).toMatchObject({ state: 'success', error: null });

    await hub.publishPackage('3.0.0');
    hub.failing.set(node, new Set(['3.0.0']));
    const failing = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '3.0.0',
      strategy: 'tarball',
    });
    expect(failing.body.from_version).toBe('2.0.0');
    const rolledBack = await finished(failing.body.id);
    expect(rolledBack).toMatchObject({ state: 'rolled-back', error: expect.stringContaining('3.0.0') });

    const history = await call('GET', `/v1/upgrades?node_id=${node}`);
    expect((history.body.items as UpgradeRow[]).map((row) => [row.to_version, row.state])).toEqual([
      ['3.0.0', 'rolled-back'],
      ['2.0.0', 'success'],
    ]);
    expect((await call('GET', '/v1/upgrades?state=success')).body.items).toHaveLength(1);
    // Each attempt's policy is gone once it ended.
    await eventually(async () => expect(await hub.policiesNamed('upgrade-')).toEqual([]));
  });

  it("fetches the package from a location when given, and refuses bytes that are not the exchange's package", async () => {
    const good = await hub.publishPackage('4.0.0');
    mirrored.set('/agent-4.0.0.tar.gz', good);
    const fromMirror = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '4.0.0',
      strategy: 'tarball',
      location: mirrorUrl('/agent-4.0.0.tar.gz'),
    });
    expect(fromMirror.status).toBe(201);
    expect(await finished(fromMirror.body.id)).toMatchObject({
      state: 'success',
      location: mirrorUrl('/agent-4.0.0.tar.gz'),
    });
    expect(mirrorHits).toContain('/agent-4.0.0.tar.gz');

    // The package's own length with its last byte changed: only its sha256 can tell (another
    // package's bytes may differ in length, and fail as a short download instead).
    const tampered5 = Buffer.from(await hub.publishPackage('5.0.0'));
    tampered5[tampered5.length - 1]! ^= 0xff;
    mirrored.set('/agent-5.0.0.tar.gz', tampered5);
    const tampered = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '5.0.0',
      strategy: 'tarball',
      location: mirrorUrl('/agent-5.0.0.tar.gz'),
    });
    const refused = await finished(tampered.body.id);
    expect(refused.state).toBe('failed');
    expect(refused.error).toMatch(/sha256|size|signature/);
  });

  it('refuses a node that cannot be upgraded now, with the reason, and bad requests with the field', async () => {
    // A node registered but never started has never reported: offline.
    expect(
      (await hub.rollouts.call('PUT', '/v1/orgs/acme/nodes/silent', { token: 'silent-token-123' }, HUB_ROOT))
        .status,
    ).toBe(201);
    const offline = await call('POST', '/v1/upgrades', {
      node_id: 'silent',
      version: '2.0.0',
      strategy: 'tarball',
    });
    expect([offline.status, offline.body.message]).toEqual([
      409,
      'node "silent" cannot be upgraded now: it is offline: it has never reported',
    ]);
    const unknown = await call('POST', '/v1/upgrades', {
      node_id: 'ghost',
      version: '2.0.0',
      strategy: 'tarball',
    });
    expect([unknown.status, unknown.body.message]).toEqual([404, 'no node "ghost" in the org']);
    const strategy = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '2.0.0',
      strategy: 'rsync',
    });
    expect(strategy.status).toBe(400);
    expect(strategy.body.message).toContain('strategy must be one of: tarball');
    const location = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '2.0.0',
      strategy: 'tarball',
      location: 'ftp://x',
    });
    expect(location.body.message).toContain('location must be an http(s) URL');
    const version = await call('POST', '/v1/upgrades', {
      node_id: node,
      version: '8.8.8',
      strategy: 'tarball',
    });
    expect([version.status, version.body.message]).toEqual([
      400,
      'no agent package of version "8.8.8" in the exchange',
    ]);

    // Held by an upgrade under way: a second is refused naming it.
    hub.failing.delete(node);
    const first = await call('POST', '/v1/upgrades', {
      node_id: ROLES.ntp[0],
      version: '2.0.0',
      strategy: 'tarball',
    });
    const second = await call('POST', '/v1/upgrades', {
      node_id: ROLES.ntp[0],
      version: '2.0.0',
      strategy: 'tarball',
    });
    expect([second.status, second.body.message]).toEqual([
      409,
      `node "${ROLES.ntp[0]}" is in upgrade ${first.body.id}`,
    ]);
    const state = await call('GET', '/v1/upgrades?state=exploded');
    expect([state.status, state.body.message]).toEqual([
      400,
      expect.stringContaining('state must be one of'),
    ]);
  });
});
