/**
 * The node's side of the exchange's REST API. Every call carries a bearer token for the node
 * (refreshed before it expires, fetched again once after a 401); nothing here retries on its
 * own, callers decide how to back off.
 */
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
import { HttpError, requestJson, serviceUrl, UnreachableError, type JsonRequest } from './http-json';
import { type NodeCredentials, TokenSource } from './token-source';

/** Sees every request the agent makes, e.g. to count them in a benchmark. */
export type RequestObserver = (target: 'exchange' | 'agbot', route: string) => void;

export class ExchangeClient {
  readonly tokens: TokenSource;

  constructor(
    readonly baseUrl: string,
    readonly credentials: NodeCredentials,
    clock: Clock,
    private readonly observe: RequestObserver = () => undefined,
  ) {
    this.tokens = new TokenSource(baseUrl, credentials, clock);
  }

  private get nodePath(): string {
    return `/v1/orgs/${this.credentials.org}/nodes/${this.credentials.node}`;
  }

  getNode(): Promise<NodeView> {
    return this.call('GET', this.nodePath);
  }

  /** Long-poll; also the node's heartbeat. */
  changes(since: number, waitSeconds: number, signal?: AbortSignal): Promise<ChangePage> {
    return this.call(
      'GET',
      `/v1/orgs/${this.credentials.org}/changes?since=${since}&wait=${waitSeconds}&limit=1000`,
      { signal, timeoutMs: (waitSeconds + 30) * 1000 },
    );
  }

  /** Where the feed is now: a poll from here sees only what changes after this call. */
  async changeHead(): Promise<number> {
    return (await this.call<{ lastId: number }>('GET', `/v1/orgs/${this.credentials.org}/changes/head`))
      .lastId;
  }

  async managementPolicies(): Promise<ManagementPolicy[]> {
    return (
      await this.call<{ items: ManagementPolicy[] }>(
        'GET',
        `/v1/orgs/${this.credentials.org}/management-policies`,
      )
    ).items;
  }

  async desiredWorkloads(): Promise<DesiredWorkload[]> {
    return (await this.call<{ items: DesiredWorkload[] }>('GET', `${this.nodePath}/workloads`)).items;
  }

  reportStatus(agentVersion: AgentVersionReport, workloads: ActualWorkload[]): Promise<NodeView> {
    return this.call('PUT', `${this.nodePath}/status`, { body: { agentVersion, workloads } });
  }

  putManagementStatus(nmp: string, report: ManagementStatusReport): Promise<unknown> {
    return this.call('PUT', `${this.nodePath}/managementStatus/${encodeURIComponent(nmp)}`, { body: report });
  }

  async listPackages(): Promise<AgentPackage[]> {
    return (await this.call<{ items: AgentPackage[] }>('GET', '/v1/agent-packages')).items;
  }

  getPackage(version: string): Promise<AgentPackage> {
    return this.call('GET', `/v1/agent-packages/${encodeURIComponent(version)}`);
  }

  /** The package bytes from `offset` on; the answer is 206 when the range held, else 200 from 0. */
  async openPackageContent(
    version: string,
    offset: number,
    etag: string | undefined,
    signal?: AbortSignal,
  ): Promise<Response> {
    const url = serviceUrl(this.baseUrl, `/v1/agent-packages/${encodeURIComponent(version)}/content`);
    const headers: Record<string, string> = { authorization: `Bearer ${await this.tokens.bearer()}` };
    if (offset > 0 && etag) Object.assign(headers, { range: `bytes=${offset}-`, 'if-range': etag });
    this.observe('exchange', 'GET /v1/agent-packages/{version}/content');
    let response: Response;
    try {
      response = await fetch(url, { headers, signal });
    } catch (error) {
      throw new UnreachableError(`${url.origin} unreachable: ${(error as Error).message}`);
    }
    if (response.status === 401) this.tokens.invalidate();
    if (!response.ok) throw new HttpError(response.status, await response.text(), `GET ${url.pathname}`);
    return response;
  }

  private async call<T>(method: string, path: string, request: JsonRequest = {}): Promise<T> {
    this.observe('exchange', `${method} ${routeOf(path)}`);
    const send = async () =>
      requestJson<T>(serviceUrl(this.baseUrl, path), {
        ...request,
        method,
        headers: { authorization: `Bearer ${await this.tokens.bearer()}` },
      });
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 401) throw error;
      this.tokens.invalidate();
      return send();
    }
  }
}

/** The route of a path without its ids, for counting. */
function routeOf(path: string): string {
  return path
    .split('?')[0]!
    .replace(/\/orgs\/[^/]+/, '/orgs/{org}')
    .replace(/\/nodes\/[^/]+/, '/nodes/{node}')
    .replace(/\/managementStatus\/[^/]+/, '/managementStatus/{nmp}')
    .replace(/\/agent-packages\/[^/]+/, '/agent-packages/{version}');
}
