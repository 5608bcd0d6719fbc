/**
 * The node's side of the exchange's REST API, on the client generated from the exchange's
 * document. Every call carries a bearer token for the node (refreshed before it expires,
 * fetched again once after a 401); nothing here retries on its own, callers decide how to
 * back off.
 */
import {
  dataOf,
  type Exchange,
  type FetchPolicy,
  refusal,
  resilientFetch,
  serviceClient,
} from '@careen/api-client';
import { type Clock } from '../core/clock';
import {
  type ActualWorkload,
  type AgentPackage,
  type AgentVersionReport,
  type ChangePage,
  type DesiredWorkload,
  type ManagementPolicy,
  type ManagementStatusReport,
  type NodeView,
} from './exchange.types';
import { type HubTransport } from './hub-connections';
import { type NodeCredentials, TokenSource } from './token-source';

/** Sees every request the agent makes, e.g. to count them in a benchmark. */
export type RequestObserver = (target: 'exchange' | 'agbot', route: string) => void;

export class ExchangeClient {
  readonly tokens: TokenSource;
  private readonly policy: FetchPolicy;
  private readonly api;

  constructor(
    readonly baseUrl: string,
    readonly credentials: NodeCredentials,
    clock: Clock,
    private readonly observe: RequestObserver = () => undefined,
    /** How requests go out; by default the process's own `fetch`. */
    private readonly transport?: HubTransport,
  ) {
    this.tokens = new TokenSource(baseUrl, credentials, clock, transport?.send);
    this.policy = { auth: this.tokens, retries: 0, fetch: transport?.send };
    this.api = serviceClient<Exchange.paths>(baseUrl, this.policy);
  }

  private get node() {
    return { org: this.credentials.org, id: this.credentials.node };
  }

  getNode(): Promise<NodeView> {
    this.observe('exchange', 'GET /v1/orgs/{org}/nodes/{node}');
    return dataOf(this.api.GET('/v1/orgs/{org}/nodes/{id}', { params: { path: this.node } }));
  }

  /**
   * Long-poll; also the node's heartbeat. The document types a change's data loosely; the
   * follower holds each one to its contract before it is applied.
   */
  async changes(since: number, waitSeconds: number, signal?: AbortSignal): Promise<ChangePage> {
    this.observe('exchange', 'GET /v1/orgs/{org}/changes');
    return (await dataOf(
      this.api.GET('/v1/orgs/{org}/changes', {
        params: { path: { org: this.credentials.org }, query: { since, wait: waitSeconds, limit: 1000 } },
        signal,
        fetch: resilientFetch({
          ...this.policy,
          fetch: this.transport?.poll,
          timeoutMs: (waitSeconds + 30) * 1000,
        }),
      }),
    )) as ChangePage;
  }

  /** Where the feed is now: a poll from here sees only what changes after this call. */
  async changeHead(): Promise<number> {
    this.observe('exchange', 'GET /v1/orgs/{org}/changes/head');
    const head = await dataOf(
      this.api.GET('/v1/orgs/{org}/changes/head', { params: { path: { org: this.credentials.org } } }),
    );
    return head.lastId;
  }

  async managementPolicies(): Promise<ManagementPolicy[]> {
    this.observe('exchange', 'GET /v1/orgs/{org}/management-policies');
    const list = await dataOf(
      this.api.GET('/v1/orgs/{org}/management-policies', { params: { path: { org: this.credentials.org } } }),
    );
    return list.items;
  }

  async desiredWorkloads(): Promise<DesiredWorkload[]> {
    this.observe('exchange', 'GET /v1/orgs/{org}/nodes/{node}/workloads');
    const list = await dataOf(
      this.api.GET('/v1/orgs/{org}/nodes/{id}/workloads', { params: { path: this.node } }),
    );
    return list.items;
  }

  reportStatus(agentVersion: AgentVersionReport, workloads: ActualWorkload[]): Promise<NodeView> {
    this.observe('exchange', 'PUT /v1/orgs/{org}/nodes/{node}/status');
    return dataOf(
      this.api.PUT('/v1/orgs/{org}/nodes/{id}/status', {
        params: { path: this.node },
        body: { agentVersion, workloads },
      }),
    );
  }

  async putManagementStatus(nmp: string, report: ManagementStatusReport): Promise<void> {
    this.observe('exchange', 'PUT /v1/orgs/{org}/nodes/{node}/managementStatus/{nmp}');
    await dataOf(
      this.api.PUT('/v1/orgs/{org}/nodes/{node}/managementStatus/{nmp}', {
        params: { path: { org: this.credentials.org, node: this.credentials.node, nmp } },
        body: report,
      }),
    );
  }

  async listPackages(): Promise<AgentPackage[]> {
    this.observe('exchange', 'GET /v1/agent-packages');
    return (await dataOf(this.api.GET('/v1/agent-packages'))).items;
  }

  getPackage(version: string): Promise<AgentPackage> {
    this.observe('exchange', 'GET /v1/agent-packages/{version}');
    return dataOf(this.api.GET('/v1/agent-packages/{version}', { params: { path: { version } } }));
  }

  /** The package bytes from `offset` on; the answer is 206 when the range held, else 200 from 0. */
  async openPackageContent(
    version: string,
    offset: number,
    etag: string | undefined,
    signal?: AbortSignal,
  ): Promise<Response> {
    this.observe('exchange', 'GET /v1/agent-packages/{version}/content');
    const resume = offset > 0 && etag ? { range: `bytes=${offset}-`, 'if-range': etag } : {};
    const { response, error } = await this.api.GET('/v1/agent-packages/{version}/content', {
      params: { path: { version } },
      headers: resume,
      parseAs: 'stream',
      signal,
    });
    if (!response.ok) throw refusal(response, error);
    return response;
  }
}
