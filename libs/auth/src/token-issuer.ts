/**
 * Signs short-lived access tokens for principals the exchange has authenticated. Used only by
 * the exchange; it never decides who may have a token, only what the token says.
 */
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type KeyLike } from 'jose';
import { principalId, type Principal } from './principal';
import { SIGNING_ALGORITHM, type SigningKeyMaterial } from './signing-key';
import { ACCESS_TOKEN_TYPE, claimsFor } from './token-claims';

export interface TokenIssuerOptions {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clock?: () => Date;
}

export interface IssuedToken {
  accessToken: string;
  /** Seconds until the token expires, as in an OAuth token response. */
  expiresIn: number;
}

export class TokenIssuer {
  private privateKey?: Promise<KeyLike | Uint8Array>;
  private readonly clock: () => Date;

  constructor(
    private readonly key: SigningKeyMaterial,
    private readonly options: TokenIssuerOptions,
  ) {
    if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds <= 0) {
      throw new RangeError(`ttlSeconds must be a positive integer, got ${options.ttlSeconds}`);
    }
    this.clock = options.clock ?? (() => new Date());
  }

  async issue(principal: Principal): Promise<IssuedToken> {
    this.privateKey ??= importJWK(this.key.privateJwk, SIGNING_ALGORITHM);
    const privateKey = await this.privateKey;
    const issuedAt = Math.floor(this.clock().getTime() / 1000);
    const accessToken = await new SignJWT({ ...claimsFor(principal) })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.key.kid, typ: ACCESS_TOKEN_TYPE })
      .setSubject(principalId(principal))
      .setIssuer(this.options.issuer)
      .setAudience(this.options.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.options.ttlSeconds)
      .setJti(randomUUID())
      .sign(privateKey);
    return { accessToken, expiresIn: this.options.ttlSeconds };
  }
}
