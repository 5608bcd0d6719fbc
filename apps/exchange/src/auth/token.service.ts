import {
  CAREEN_TOKEN_AUDIENCE,
  CAREEN_TOKEN_ISSUER,
  TokenIssuer,
  type Principal,
  type SigningKeyMaterial,
} from '@careen/auth';
import { DomainError } from '@careen/contracts';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type ExchangeConfig } from '../exchange.config';
import { SigningKeyStore } from '../keys/signing-key.store';
import { type TokenResponse } from './dto/token.response';
import { LoginRenewal } from './login-renewal';
import { secondsUntil } from './refresh-token.rules';
import { type IssuedRefreshToken, RefreshTokenStore } from './refresh-token.store';

/**
 * Issues short-lived access tokens signed with the current key and, to users, the refresh token
 * that renews them until the login ends. Nodes get none: they hold their own lasting token.
 * Each renewal is checked first (LoginRenewal): a person removed from their groups, or from
 * the provider, or a password login of an org that switched passwords off, is refused then.
 */
@Injectable()
export class TokenService {
  /** The current key and its issuer, which imports the private key once (not per token). */
  private signing: { key: SigningKeyMaterial; issuer: TokenIssuer } | undefined;

  constructor(
    private readonly keys: SigningKeyStore,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly renewal: LoginRenewal,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
  ) {}

  /** `upstream`: the refresh token of the provider that signed the user in, if one did. */
  async issue(principal: Principal, now = new Date(), upstream?: string): Promise<TokenResponse> {
    const access = await this.signAccessToken(principal);
    if (principal.kind !== 'user') return access;
    const expiresAt = new Date(now.getTime() + this.config.CAREEN_REFRESH_TOKEN_TTL_SECONDS * 1000);
    return withRefresh(access, await this.refreshTokens.start(principal, expiresAt, now, upstream), now);
  }

  /** A new access token and the next refresh token of the login, for a refresh token not yet used. */
  async refresh(refreshToken: string, now = new Date()): Promise<TokenResponse> {
    const login = await this.refreshTokens.login(refreshToken, now);
    let upstream: string | undefined;
    try {
      upstream = await this.renewal.check(login);
    } catch (error) {
      // A refusal ends the login; an unreachable provider does not, and the token may be tried again.
      if (error instanceof DomainError && (error.kind === 'unauthenticated' || error.kind === 'forbidden')) {
        await this.refreshTokens.revoke(refreshToken, now);
      }
      throw error;
    }
    const next = await this.refreshTokens.rotate(refreshToken, now, upstream);
    return withRefresh(await this.signAccessToken(next.principal), next, now);
  }

  revoke(refreshToken: string, now = new Date()): Promise<void> {
    return this.refreshTokens.revoke(refreshToken, now);
  }

  private signAccessToken(principal: Principal): Promise<TokenResponse> {
    const key = this.keys.current();
    if (this.signing?.key !== key) {
      const options = {
        issuer: CAREEN_TOKEN_ISSUER,
        audience: CAREEN_TOKEN_AUDIENCE,
        ttlSeconds: this.config.CAREEN_TOKEN_TTL_SECONDS,
      };
      this.signing = { key, issuer: new TokenIssuer(key, options) };
    }
    return this.signing.issuer.issue(principal);
  }
}

function withRefresh(access: TokenResponse, refresh: IssuedRefreshToken, now: Date): TokenResponse {
  return {
    ...access,
    refreshToken: refresh.refreshToken,
    refreshExpiresIn: secondsUntil(refresh.expiresAt, now),
  };
}
