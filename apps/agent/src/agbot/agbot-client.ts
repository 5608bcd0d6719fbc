/**
 * The agbot's HA-group upgrade semaphore, as a node asks for it, on the client generated from
 * the agbot's document: a grant (200) or the current holder (409), at once or after waiting
 * for the slot; a holder's repeated request renews its lease; DELETE releases it.
 */
import {
  type Agbot,
  ApiError,
  dataOf,
  resilientFetch,
  type SendRequest,
  serviceClient,
} from '@careen/api-client';
import { type RequestObserver } from '../exchange/exchange-client';
import { type TokenSource } from '../exchange/token-source';

export type UpgradeGrant = Agbot.components['schemas']['UpgradeGrantResponse'];

export interface UpgradeHolder {
  node: string;
  managementPolicy: string | null;
  grantedAt: string;
  /** null while the holder halts its group (failed and not healthy again). */
  leaseExpiresAt: string | null;
  halted?: boolean;
  error?: string | null;
}

export type UpgradeAnswer =
  | { granted: true; grant: UpgradeGrant }
  | { granted: false; holder?: UpgradeHolder; policyStopped?: boolean; why?: string };

/** How long the agbot may take to answer, on top of any wait asked for. */
const ANSWER_SECONDS = 30;

export class AgbotClient {
  private readonly api;

  constructor(
    baseUrl: string,
    private readonly org: string,
    private readonly node: string,
    private readonly tokens: TokenSource,
    private readonly observe: RequestObserver = () => undefined,
    private readonly send?: SendRequest,
  ) {
    // The HA permit decides when to ask again: one attempt per call.
    this.api = serviceClient<Agbot.paths>(baseUrl, { auth: tokens, retries: 0, fetch: send });
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
      if (error instanceof ApiError && error.status === 409) {
        if (error.code === 'UPGRADE_POLICY_STOPPED') return { granted: false, policyStopped: true };
        return {
          granted: false,
          holder: error.body?.details.holder as UpgradeHolder | undefined,
          why: error.body?.message,
        };
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
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    }
  }

  private post(
    body: { managementPolicy: string; renew?: boolean },
    waitSeconds: number,
    signal: AbortSignal | undefined,
  ): Promise<UpgradeGrant> {
    this.observe('agbot', 'POST /v1/orgs/{org}/nodes/{node}/upgrade');
    return dataOf(
      this.api.POST('/v1/orgs/{org}/nodes/{node}/upgrade', {
        params: {
          path: { org: this.org, node: this.node },
          query: waitSeconds > 0 ? { wait: waitSeconds } : {},
        },
        body,
        signal,
        fetch: resilientFetch({
          auth: this.tokens,
          retries: 0,
          timeoutMs: (waitSeconds + ANSWER_SECONDS) * 1000,
          fetch: this.send,
        }),
      }),
    );
  }

  async release(): Promise<void> {
    this.observe('agbot', 'DELETE /v1/orgs/{org}/nodes/{node}/upgrade');
    try {
      await dataOf(
        this.api.DELETE('/v1/orgs/{org}/nodes/{node}/upgrade', {
          params: { path: { org: this.org, node: this.node } },
        }),
      );
    } catch (error) {
      // Released already (by the agbot's monitor, or never granted): nothing to undo.
      if (error instanceof ApiError && error.status === 404) return;
      throw error;
    }
  }
}
