/**
 * A node's bearer token from the exchange's `POST /v1/auth/token`, fetched on first use and
 * refreshed once a fifth of its life is left, so the hot paths (polls, status reports) never
 * send the node token itself nor make the exchange hash it on every request.
 */
import { dataOf, type Exchange, IssuedToken, type SendRequest, serviceClient } from '@careen/api-client';
import { type Clock } from '../core/clock';

export interface NodeCredentials {
  org: string;
  node: string;
  token: string;
}

export class TokenSource extends IssuedToken {
  constructor(
    exchangeUrl: string,
    private readonly credentials: NodeCredentials,
    clock: Clock,
    send?: SendRequest,
  ) {
    // The agent's loops back off on their own: one attempt per call.
    const exchange = serviceClient<Exchange.paths>(exchangeUrl, { retries: 0, fetch: send });
    const { org, node, token } = credentials;
    super(
      () => dataOf(exchange.POST('/v1/auth/token', { body: { org, node, token } })),
      () => clock.now().getTime(),
    );
  }

  basic(): string {
    const { org, node, token } = this.credentials;
    return `Basic ${Buffer.from(`${org}/${node}:${token}`).toString('base64')}`;
  }
}
