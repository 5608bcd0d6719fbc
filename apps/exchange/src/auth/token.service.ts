import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer, type Principal } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type ExchangeConfig } from '../exchange.config';
import { SigningKeyStore } from '../keys/signing-key.store';
import { type TokenResponse } from './dto/token.response';
import { secondsUntil } from './refresh-token.rules';
import { type IssuedRefreshToken, RefreshTokenStore } from './refresh-token.store';

/**
 * Issues short-lived access tokens signed with the current key and, to users, the refresh token
 * that renews them until the login ends. Nodes get none: they hold their own lasting token.
 */
@Injectable()
export class TokenService {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly refreshTokens: RefreshTokenStore,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
  ) {}

  async issue(principal: Principal, now = new Date()): Promise<TokenResponse> {
    const access = await this.signAccessToken(principal);
    if (principal.kind !== 'user') return access;
    const expiresAt = new Date(now.getTime() + this.config.CAREEN_REFRESH_TOKEN_TTL_SECONDS * 1000);
    return withRefresh(access, await this.refreshTokens.start(principal, expiresAt, now), now);
  }

  /** A new access token and the next refresh token of the login, for a refresh token not yet used. */
  async refresh(refreshToken: string, now = new Date()): Promise<TokenResponse> {
    const next = await this.refreshTokens.rotate(refreshToken, now);
    return withRefresh(await this.signAccessToken(next.principal), next, now);
  }

  revoke(refreshToken: string, now = new Date()): Promise<void> {
    return this.refreshTokens.revoke(refreshToken, now);
  }

  private signAccessToken(principal: Principal): Promise<TokenResponse> {
    return new TokenIssuer(this.keys.current(), {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: this.config.CAREEN_TOKEN_TTL_SECONDS,
    }).issue(principal);
  }
}

function withRefresh(access: TokenResponse, refresh: IssuedRefreshToken, now: Date): TokenResponse {
  return {
    ...access,
    refreshToken: refresh.refreshToken,
    refreshExpiresIn: secondsUntil(refresh.expiresAt, now),
  };
}
