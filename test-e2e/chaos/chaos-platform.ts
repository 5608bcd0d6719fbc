/**
 * The whole platform as it runs deployed, for the chaos run: a Postgres that can be restarted, a
 * three-node JetStream cluster whose members can be killed and started again, and every hub
 * service as two processes behind one address (a round-robin proxy). Each service reaches NATS
 * through proxies of its own, one per member (the members keep their own addresses from
 * clients), and the agents reach the exchange through one more, so that a link between any two
 * parts can be delayed, reset or cut.
 */
import { connectBus, type BusConnection } from '@careen/bus';
import { findNatsServer, startNatsCluster, type RunningNatsCluster } from '@careen/devstack';
import { startTcpProxy, type TcpProxy } from '@careen/testing';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplicated, type ReplicatedService } from '../support/replicated-service';
import { RestartablePostgres } from '../support/restartable-postgres';
import { type HttpStatusCounter } from './http-status-counter';

export const ROOT_PASSWORD = 'chaos-root-password';
/** Processes of each service. */
const REPLICAS = 2;

export type HubServiceName =
  'exchange' | 'agbot' | 'maintenance-session' | 'deployment-orchestrator' | 'notifier';

/** A service of the platform: its replicas, their one address, and their links to NATS. */
export interface ChaosService extends ReplicatedService {
  name: HubServiceName;
  natsProxies: TcpProxy[];
}

export class ChaosPlatform {
  readonly services = new Map<HubServiceName, ChaosService>();
  /** The agents' link to the exchange. */
  agentLink!: TcpProxy;
  /** A connection of the run's own, straight to the cluster, for checks. */
  bus!: BusConnection;
  readonly postgres = new RestartablePostgres();
  cluster!: RunningNatsCluster;
  private readonly natsFolder = mkdtempSync(join(tmpdir(), 'careen-chaos-nats-'));

  constructor(private readonly statuses: HttpStatusCounter) {
    chmodSync(this.natsFolder, 0o755);
  }

  url(service: HubServiceName): string {
    return this.services.get(service)!.proxy.url;
  }

  async start(): Promise<void> {
    const binary = findNatsServer({
      explicitPath: process.env.CAREEN_NATS_SERVER_BIN,
      path: process.env.PATH,
    });
    if (!binary) throw new Error('the chaos run needs nats-server (CAREEN_NATS_SERVER_BIN or PATH)');
    await this.postgres.start();
    this.cluster = await startNatsCluster({ binary, storeDir: this.natsFolder, noAdvertise: true });
    this.bus = await connectBus({ url: this.cluster.url, name: 'chaos-checks' });
    const hub = () => ({ CAREEN_EXCHANGE_URL: this.url('exchange') });
    await this.startService('exchange', { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    this.agentLink = await startTcpProxy([this.services.get('exchange')!.proxy.port]);
    await this.startService('agbot', { ...hub(), CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD });
    await Promise.all([
      this.startService('maintenance-session', {
        ...hub(),
        CAREEN_AGBOT_URL: this.url('agbot'),
        CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
        CAREEN_MAINTENANCE_TICK_MS: '100',
      }),
      this.startService('deployment-orchestrator', {
        ...hub(),
        CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD,
        CAREEN_ORCHESTRATOR_TICK_MS: '100',
      }),
      this.startService('notifier', {
        ...hub(),
        CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD,
        // The VNF manager's webhook listens on loopback.
        CAREEN_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.0/8',
      }),
    ]);
  }

  private async startService(name: HubServiceName, env: Record<string, string>): Promise<void> {
    const natsProxies = await Promise.all(this.cluster.members.map((member) => startTcpProxy([member.port])));
    const service = await startReplicated(name, REPLICAS, () => ({
      CAREEN_DATABASE_URL: this.postgres.url,
      CAREEN_NATS_URL: natsProxies.map((proxy) => `nats://127.0.0.1:${proxy.port}`).join(','),
      CAREEN_NATS_STREAM_REPLICAS: String(this.cluster.replicas),
      ...env,
    }));
    service.proxy.observeResponses(() => this.statuses.connection(name));
    this.services.set(name, { ...service, name, natsProxies });
  }

  /** The member that leads `stream` now, if one does. */
  async streamLeader(stream: string): Promise<string | undefined> {
    const info = await this.bus.jsm.streams.info(stream).catch(() => undefined);
    return info?.cluster?.leader;
  }

  async stop(): Promise<void> {
    for (const service of this.services.values()) {
      await Promise.all(service.replicas.map((replica) => replica.kill()));
      await service.proxy.close();
      for (const proxy of service.natsProxies) await proxy.close();
    }
    await this.agentLink?.close();
    await this.bus?.close();
    await this.cluster?.stop();
    await this.postgres.remove();
    rmSync(this.natsFolder, { recursive: true, force: true });
  }
}
