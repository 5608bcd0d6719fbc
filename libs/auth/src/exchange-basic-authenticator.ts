/**
 * Basic credentials for services other than the exchange: trades them for an access token at
 * the exchange's POST /v1/auth/token (as a user, then as a node), verifies that token like any
 * other, and remembers the answer briefly so agents polling with Basic do not hit the exchange
 * on every request. It never stores a secret, only a keyed hash of it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { AuthenticationError, AuthErrorCode, AuthServiceUnavailableError } from './auth.errors';
import { type BasicAuthenticator } from './basic-authenticator';
import { askExchange } from './exchange-call';
import { ExpiringCache } from './expiring-cache';
import { type Principal } from './principal';
import { type IssuedToken } from './token-issuer';
import { type TokenVerifier } from './token-verifier';

export interface ExchangeBasicAuthenticatorOptions {
  /** How long a successful check is reused, capped by the token's life minus 10 s. Default 60 s. */
  cacheTtlMs?: number;
  /** Most credentials remembered at once; the oldest is forgotten first. Default 10,000. */
  maxCacheEntries?: number;
  /** Give up on the exchange after this long. Default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  clock?: () => number;
}

type TokenRequest =
  { org: string; username: string; password: string } | { org: string; node: string; token: string };

const EXPIRY_MARGIN_MS = 10_000;

function isIssuedToken(body: unknown): body is IssuedToken {
  if (typeof body !== 'object' || body === null) return false;
  const { accessToken, expiresIn } = body as Record<string, unknown>;
  return typeof accessToken === 'string' && accessToken.length > 0 && typeof expiresIn === 'number';
}

function nameOf(principal: Principal): string | undefined {
  switch (principal.kind) {
    case 'user':
      return principal.username;
    case 'node':
      return principal.node;
    case 'service':
      return undefined;
  }
}

export class ExchangeBasicAuthenticator implements BasicAuthenticator {
  private readonly tokenUrl: URL;
  private readonly cache: ExpiringCache<Principal>;
  private readonly inFlight = new Map<string, Promise<Principal>>();
  private readonly cacheKeySecret = randomBytes(32);
  private readonly cacheTtlMs: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;
  private readonly clock: () => number;

  constructor(
    exchangeUrl: URL,
    private readonly verifier: TokenVerifier,
    options: ExchangeBasicAuthenticatorOptions = {},
  ) {
    this.tokenUrl = new URL(`${exchangeUrl.href.replace(/\/+$/, '')}/v1/auth/token`);
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.clock = options.clock ?? Date.now;
    this.cache = new ExpiringCache(options.maxCacheEntries ?? 10_000, this.clock);
  }

  async authenticate(org: string, id: string, secret: string): Promise<Principal> {
    const key = createHmac('sha256', this.cacheKeySecret)
      .update(JSON.stringify([org, id, secret]))
      .digest('base64url');
    const cached = this.cache.get(key);
    if (cached) return cached;
    // Concurrent requests with the same credentials share one round trip.
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const attempt = this.exchangeCredentials(org, id, secret)
      .then(({ principal, expiresIn }) => {
        this.cache.set(key, principal, Math.min(this.cacheTtlMs, expiresIn * 1000 - EXPIRY_MARGIN_MS));
        return principal;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, attempt);
    return attempt;
  }

  private async exchangeCredentials(
    org: string,
    id: string,
    secret: string,
  ): Promise<{ principal: Principal; expiresIn: number }> {
    const issued =
      (await this.requestToken({ org, username: id, password: secret })) ??
      (await this.requestToken({ org, node: id, token: secret }));
    if (!issued) throw new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');
    const principal = await this.verifier.verify(issued.accessToken);
    if (principal.org !== org || nameOf(principal) !== id) {
      throw new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');
    }
    return { principal, expiresIn: issued.expiresIn };
  }

  /** The token, or undefined when the exchange rejects these credentials. */
  private async requestToken(body: TokenRequest): Promise<IssuedToken | undefined> {
    const answer = await askExchange(
      this.fetch,
      this.tokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      },
      this.timeoutMs,
    );
    if (answer.rejected) return undefined;
    if (!isIssuedToken(answer.body))
      throw new AuthServiceUnavailableError('the exchange sent an unexpected token response');
    return answer.body;
  }
}
