/**
 * What the upgrade and FleetLock integration tests share: a stand-in for the exchange's key
 * set (GET /v1/auth/jwks, which is all the agbot asks of the exchange to check a bearer token),
 * tokens signed with that key as the exchange would sign them, any number of agbots on the same
 * database, and nodes seeded straight into the agbot's mirror as the change stream would.
 */
import {
  CAREEN_TOKEN_AUDIENCE,
  CAREEN_TOKEN_ISSUER,
  generateSigningKey,
  toJwks,
  TokenIssuer,
  type Principal,
} from '@careen/auth';
import { type ChangeDataOf, type ManagementStatusValue } from '@careen/contracts';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { agbotService } from '../agbot.service';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { readTimeline, type TimelineEvent } from './upgrade-timeline';

export interface BearerCredentials {
  bearer: string;
}

/** Mirror writes carry change ids far above anything a test exchange would publish, so they stick. */
let seedChangeId = 1_000_000_000;

export class UpgradeHub {
  readonly agbots: InProcessService<AgbotConfig>[] = [];

  private constructor(
    private readonly infra: { databaseUrl: string; natsUrl: string },
    private readonly keySet: Server,
    private readonly issuer: TokenIssuer,
  ) {}

  static async start(infra: { databaseUrl: string; natsUrl: string }): Promise<UpgradeHub> {
    const key = await generateSigningKey();
    const jwks = JSON.stringify(toJwks([key]));
    const keySet = createServer((request, response) => {
      response.writeHead(request.url === '/v1/auth/jwks' ? 200 : 404, { 'content-type': 'application/json' });
      response.end(request.url === '/v1/auth/jwks' ? jwks : '{}');
    });
    await new Promise<void>((resolve) => keySet.listen(0, '127.0.0.1', resolve));
    const issuer = new TokenIssuer(key, {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: 3600,
    });
    return new UpgradeHub(infra, keySet, issuer);
  }

  get exchangeUrl(): string {
    return `http://127.0.0.1:${(this.keySet.address() as AddressInfo).port}`;
  }

  async startAgbot(env: Record<string, string> = {}): Promise<InProcessService<AgbotConfig>> {
    const agbot = await startServiceInProcess(agbotService, this.infra, {
      CAREEN_EXCHANGE_URL: this.exchangeUrl,
      ...env,
    });
    this.agbots.push(agbot);
    return agbot;
  }

  async close(): Promise<void> {
    for (const agbot of this.agbots) await agbot.close();
    this.keySet.closeAllConnections();
    await new Promise((resolve) => this.keySet.close(resolve));
  }

  get dataSource(): DataSource {
    return this.agbots[0]!.app.get(DataSource);
  }

  /** Puts nodes in the agbot's mirror as the change stream would: `{node: haGroup | null}`. */
  async seedNodes(org: string, groups: Record<string, string | null>): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction(async (manager) => {
      for (const [node, haGroup] of Object.entries(groups)) {
        await mirror.mergeNode(manager, org, node, { haGroup }, seedChangeId++);
      }
    });
  }

  /** Puts a node with more of its exchange record (labels, rack) in the agbot's mirror. */
  async seedNode(
    org: string,
    id: string,
    data: { haGroup: string | null } & Record<string, unknown>,
  ): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction((manager) => mirror.mergeNode(manager, org, id, data, seedChangeId++));
  }

  /** Puts an HA group, window, freeze or budget in the agbot's mirror as the change stream would. */
  async seedResource(
    org: string,
    resource: 'haGroup' | 'window' | 'freeze' | 'budget' | 'gate' | 'deploymentPolicy',
    name: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction((manager) =>
      mirror.putResource(manager, org, resource, name, { org, name, selector: {}, ...data }, seedChangeId++),
    );
  }

  async deleteSeededResource(
    org: string,
    resource: 'window' | 'freeze' | 'budget',
    name: string,
  ): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction((manager) =>
      mirror.deleteResource(manager, org, resource, name, seedChangeId++),
    );
  }

  /** Puts a management policy's state in the agbot's mirror as the change stream would. */
  async seedManagementPolicy(
    org: string,
    name: string,
    state: { enabled: boolean; paused?: boolean },
  ): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction((manager) =>
      mirror.putResource(manager, org, 'managementPolicy', name, { org, name, ...state }, seedChangeId++),
    );
  }

  /** Takes a management policy out of the agbot's mirror, as its removal at the exchange would. */
  async deleteSeededManagementPolicy(org: string, name: string): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction((manager) =>
      mirror.deleteResource(manager, org, 'managementPolicy', name, seedChangeId++),
    );
  }

  async deleteSeededNode(org: string, node: string): Promise<void> {
    const mirror = this.agbots[0]!.app.get(ExchangeMirror);
    await this.dataSource.transaction((manager) => mirror.deleteNode(manager, org, node, seedChangeId++));
  }

  /** A bearer token for this principal, signed as the exchange signs them. */
  async token(principal: Principal): Promise<BearerCredentials> {
    return { bearer: (await this.issuer.issue(principal)).accessToken };
  }

  nodeToken(org: string, node: string): Promise<BearerCredentials> {
    return this.token({ kind: 'node', org, node });
  }

  userToken(
    org: string,
    username: string,
    role: 'orgAdmin' | 'operator' | 'viewer',
  ): Promise<BearerCredentials> {
    return this.token({ kind: 'user', org, username, role });
  }

  /**
   * Lets `seconds` go by for the node's slots as their leases see it: each lease ends that much
   * sooner, as if the holder had not renewed for that long. Leases are judged by the database's
   * clock, so a test turns them back instead of sleeping until they run out. Answers the new ends.
   */
  async passLeaseTime(org: string, node: string, seconds: number): Promise<Date[]> {
    // An UPDATE answers [rows, count].
    const [rows] = (await this.dataSource.query(
      `UPDATE agbot.upgrade_grants SET lease_expires_at = lease_expires_at - make_interval(secs => $3)
       WHERE org = $1 AND node = $2 RETURNING lease_expires_at`,
      [org, node, seconds],
    )) as [{ lease_expires_at: Date }[], number];
    return rows.map((row) => row.lease_expires_at);
  }

  timeline(): Promise<TimelineEvent[]> {
    return readTimeline(this.dataSource.manager);
  }

  async history(org: string, node: string): Promise<{ event: string; reason: string | null }[]> {
    return (await this.timeline())
      .filter((event) => event.org === org && event.node === node)
      .map(({ event, reason }) => ({ event, reason }));
  }
}

/** A node's change data as the exchange publishes it, for changes the tests hand the monitor. */
export function nodeChangeData(
  org: string,
  id: string,
  haGroup: string | null,
  more: Record<string, unknown> = {},
): ChangeDataOf<'node'> {
  return { org, id, haGroup, schedulable: true, status: null, updatedAt: new Date().toISOString(), ...more };
}

/** A management status's change data as the exchange publishes it. */
export function statusChangeData(
  org: string,
  node: string,
  nmp: string,
  status: ManagementStatusValue,
  error?: string,
): ChangeDataOf<'managementStatus'> {
  return {
    org,
    node,
    nmp,
    status,
    attempt: 1,
    updated: new Date().toISOString(),
    ...(error ? { error } : {}),
  };
}
