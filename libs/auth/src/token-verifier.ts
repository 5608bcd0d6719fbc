/**
 * Verifies Careen access tokens against the exchange's key set, locally (inside the exchange)
 * or fetched from GET /v1/auth/jwks (every other service). Every failure leaves as an
 * AuthenticationError or AuthServiceUnavailableError; no jose error escapes.
 *
 * A token that verified is remembered (by its hash) until it expires, so a client sending the
 * same token on every request pays for one ES256 check, not one per request. The exchange keeps
 * every key in its key set until the tokens it signed have expired, so nothing a cached token
 * was checked against can change before then. Only successes are cached.
 */
import { hash } from 'node:crypto';
import {
  createLocalJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AuthenticationError, AuthErrorCode, AuthServiceUnavailableError } from './auth.errors';
import { ExpiringCache } from './expiring-cache';
import { type Principal } from './principal';
import { RemoteKeySet, type RemoteKeySetOptions } from './remote-key-set';
import { SIGNING_ALGORITHM } from './signing-key';
import { ACCESS_TOKEN_TYPE, principalFromClaims } from './token-claims';

export interface TokenVerifier {
  /** The principal the token names; throws AuthenticationError or AuthServiceUnavailableError. */
  verify(token: string): Promise<Principal>;
}

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  /** Allowed clock skew between the exchange and this service. Default 5 seconds. */
  clockToleranceSeconds?: number;
  clock?: () => Date;
  /**
   * Verified tokens remembered until they expire (the oldest go first when full). Default
   * 100,000: a fleet's every agent, with the token it fetched next, for fleets of tens of
   * thousands per replica (a full cache checks each token again, as without one). 0 turns it off.
   */
  cacheEntries?: number;
}

export type JwksSource = () => JSONWebKeySet | Promise<JSONWebKeySet>;

/** The key set itself could not be obtained: the service's fault, not the caller's. */
class KeySetUnavailable extends Error {}

const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
const DEFAULT_CACHE_ENTRIES = 100_000;

function guardKeyLookup(getKey: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await getKey(header, token);
    } catch (error) {
      // A kid or alg that matches no key is the token's problem; anything else is ours.
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
        throw error;
      throw new KeySetUnavailable('token signing keys are unavailable', { cause: error });
    }
  };
}

function localKeyLookup(source: JwksSource): JWTVerifyGetKey {
  let lastJwks: JSONWebKeySet | undefined;
  let lastKeySet: JWTVerifyGetKey | undefined;
  return async (header, token) => {
    const jwks = await source();
    // Reuse the imported keys while the source hands back the same key set.
    if (jwks !== lastJwks || !lastKeySet) {
      lastKeySet = createLocalJWKSet(jwks);
      lastJwks = jwks;
    }
    return lastKeySet(header, token);
  };
}

export class JwksTokenVerifier implements TokenVerifier {
  private readonly verified: ExpiringCache<Principal> | undefined;

  private constructor(
    private readonly getKey: JWTVerifyGetKey,
    private readonly options: TokenVerifierOptions,
  ) {
    const entries = options.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
    this.verified = entries > 0 ? new ExpiringCache(entries, () => this.now().getTime()) : undefined;
  }

  /** For the exchange, which holds the key set in memory; the source is read on each call. */
  static local(source: JwksSource, options: TokenVerifierOptions): JwksTokenVerifier {
    return new JwksTokenVerifier(guardKeyLookup(localKeyLookup(source)), options);
  }

  /**
   * For every other service: the exchange's GET /v1/auth/jwks (see RemoteKeySet), fetched from
   * now on, ahead of the first token.
   */
  static remote(url: URL, options: TokenVerifierOptions & RemoteKeySetOptions): JwksTokenVerifier {
    const keySet = new RemoteKeySet(url, options);
    void keySet.prefetch();
    return new JwksTokenVerifier(guardKeyLookup(keySet.getKey), options);
  }

  async verify(token: string): Promise<Principal> {
    // One-shot: a Hash object per request showed in the exchange's profile under an idle fleet's polls.
    const cacheKey = this.verified && hash('sha256', token, 'base64url');
    const cached = cacheKey && this.verified?.get(cacheKey);
    if (cached) return { ...cached };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.getKey, {
        algorithms: [SIGNING_ALGORITHM],
        typ: ACCESS_TOKEN_TYPE,
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['sub', 'iat', 'exp'],
        clockTolerance: this.options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
        currentDate: this.now(),
      }));
    } catch (error) {
      throw translateVerifyError(error);
    }
    const principal = principalFromClaims(payload);
    if (!principal) throw new AuthenticationError(AuthErrorCode.InvalidToken, 'invalid token claims');
    // Until `exp` only: the clock tolerance past it is left to a full check, which says why it failed.
    if (cacheKey) this.verified?.set(cacheKey, { ...principal }, payload.exp! * 1000 - this.now().getTime());
    return principal;
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }
}

function translateVerifyError(error: unknown): Error {
  if (error instanceof KeySetUnavailable) {
    return new AuthServiceUnavailableError(error.message, { cause: error.cause });
  }
  if (error instanceof errors.JWTExpired) {
    return new AuthenticationError(AuthErrorCode.TokenExpired, 'token expired');
  }
  return new AuthenticationError(AuthErrorCode.InvalidToken, 'invalid token');
}
