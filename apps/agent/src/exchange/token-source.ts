/**
 * A node's bearer token from the exchange's `POST /v1/auth/token`, fetched on first use and
 * refreshed once a fifth of its life is left, so the hot paths (polls, status reports) never
 * send the node token itself nor make the exchange hash it on every request.
 */
import { type BearerSource, dataOf, type Exchange, serviceClient } from '@careen/api-client';
import { type Clock } from '../core/clock';

export interface NodeCredentials {
  org: string;
  node: string;
  token: string;
}

export class TokenSource implements BearerSource {
  private readonly exchange;
  private current: { token: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    exchangeUrl: string,
    private readonly credentials: NodeCredentials,
    private readonly clock: Clock,
  ) {
    // The agent's loops back off on their own: one attempt per call.
    this.exchange = serviceClient<Exchange.paths>(exchangeUrl, { retries: 0 });
  }

  async bearer(): Promise<string> {
    if (this.current && this.clock.now().getTime() < this.current.refreshAt) return this.current.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets the token, e.g. after a 401, so the next call fetches a new one. */
  invalidate(): void {
    this.current = undefined;
  }

  basic(): string {
    const { org, node, token } = this.credentials;
    return `Basic ${Buffer.from(`${org}/${node}:${token}`).toString('base64')}`;
  }

  private async fetchToken(): Promise<string> {
    const { org, node, token } = this.credentials;
    const answer = await dataOf(this.exchange.POST('/v1/auth/token', { body: { org, node, token } }));
    this.current = {
      token: answer.accessToken,
      refreshAt: this.clock.now().getTime() + answer.expiresIn * 800,
    };
    return answer.accessToken;
  }
}
