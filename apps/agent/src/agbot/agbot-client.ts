/**
 * The agbot's HA-group upgrade semaphore, as a node asks for it: a grant (200) or the current
 * holder (409), at once or after waiting for the slot; a holder's repeated request renews its
 * lease; DELETE releases it.
 */
import { type RequestObserver } from '../exchange/exchange-client';
import { errorCode, HttpError, requestJson, serviceUrl } from '../exchange/http-json';
import { type TokenSource } from '../exchange/token-source';

export interface UpgradeGrant {
  org: string;
  node: string;
  haGroup: string | null;
  managementPolicy: string;
  grantedAt: string;
  leaseExpiresAt: string;
}

export interface UpgradeHolder {
  node: string;
  managementPolicy: string;
  grantedAt: string;
  /** null while the holder halts its group (failed and not healthy again). */
  leaseExpiresAt: string | null;
  halted?: boolean;
  error?: string | null;
}

export type UpgradeAnswer =
  | { granted: true; grant: UpgradeGrant }
  | { granted: false; holder?: UpgradeHolder; policyStopped?: boolean };

/** How long the agbot may take to answer, on top of any wait asked for. */
const ANSWER_SECONDS = 30;

export class AgbotClient {
  constructor(
    private readonly baseUrl: string,
    private readonly org: string,
    private readonly node: string,
    private readonly tokens: TokenSource,
    private readonly observe: RequestObserver = () => undefined,
  ) {}

  private get url(): URL {
    return serviceUrl(this.baseUrl, `/v1/orgs/${this.org}/nodes/${this.node}/upgrade`);
  }

  /**
   * Asks for the slot. With `waitSeconds`, the agbot holds the request while a peer holds the
   * slot and answers as soon as it is granted, or 409 when the time is up; `signal` hangs up.
   */
  async requestUpgrade(
    managementPolicy: string,
    waitSeconds = 0,
    signal?: AbortSignal,
  ): Promise<UpgradeAnswer> {
    try {
      const grant = await this.post({ managementPolicy }, waitSeconds, signal);
      return { granted: true, grant };
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) {
        if (errorCode(error) === 'UPGRADE_POLICY_STOPPED') return { granted: false, policyStopped: true };
        const details = (error.body as { details?: { holder?: UpgradeHolder } } | undefined)?.details;
        return { granted: false, holder: details?.holder };
      }
      throw error;
    }
  }

  /**
   * Extends the lease of the grant this node holds; false when it holds none any more (the
   * monitor or the lease ended it). Never takes a new grant.
   */
  async renewUpgrade(managementPolicy: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.post({ managementPolicy, renew: true }, 0, signal);
      return true;
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return false;
      throw error;
    }
  }

  /** POST …/upgrade; a 401 drops the cached token so the next call fetches a new one. */
  private async post(
    body: object,
    waitSeconds: number,
    signal: AbortSignal | undefined,
  ): Promise<UpgradeGrant> {
    this.observe('agbot', 'POST /v1/orgs/{org}/nodes/{node}/upgrade');
    const url = this.url;
    if (waitSeconds > 0) url.searchParams.set('wait', String(waitSeconds));
    try {
      return await requestJson<UpgradeGrant>(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${await this.tokens.bearer()}` },
        body,
        timeoutMs: (waitSeconds + ANSWER_SECONDS) * 1000,
        signal,
      });
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) this.tokens.invalidate();
      throw error;
    }
  }

  async release(): Promise<void> {
    this.observe('agbot', 'DELETE /v1/orgs/{org}/nodes/{node}/upgrade');
    try {
      await requestJson(this.url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await this.tokens.bearer()}` },
      });
    } catch (error) {
      // Released already (by the agbot's monitor, or never granted): nothing to undo.
      if (error instanceof HttpError && error.status === 404) return;
      throw error;
    }
  }
}
