import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer, type Principal } from '@careen/auth';
import { DomainError } from '@careen/contracts';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { SigningKeyStore } from '../keys/signing-key.store';
import { IdentityProviderStore } from '../single-sign-on/identity-provider.store';
import { OpenIdProviders } from '../single-sign-on/openid-providers';
import { identityFromClaims } from '../single-sign-on/sso-identity.rules';
import { SsoUsers } from '../single-sign-on/sso-users';
import { passwordLoginDisabled, ssoRefused } from '../single-sign-on/sso.errors';
import { ROOT_ORG, ROOT_USER } from '../users/user-role.policy';
import { type TokenResponse } from './dto/token.response';
import { secondsUntil } from './refresh-token.rules';
import { type IssuedRefreshToken, RefreshTokenStore, type RenewableLogin } from './refresh-token.store';

/**
 * Issues short-lived access tokens signed with the current key and, to users, the refresh token
 * that renews them until the login ends. Nodes get none: they hold their own lasting token.
 * Renewing a login made through an org's OpenID provider asks the provider again, so a person
 * removed from their groups (or from the provider) loses access at the next renewal; renewing a
 * password login checks that the org still allows passwords.
 */
@Injectable()
export class TokenService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SigningKeyStore,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly providerSettings: IdentityProviderStore,
    private readonly providers: OpenIdProviders,
    private readonly ssoUsers: SsoUsers,
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
      upstream =
        login.identityProvider === null ? await this.passwordRenewal(login) : await this.ssoRenewal(login);
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

  /** Passwords may be switched off for an org; the hub admin root/root keeps its own, to get back in. */
  private async passwordRenewal(login: RenewableLogin): Promise<undefined> {
    if (login.org === ROOT_ORG && login.username === ROOT_USER) return undefined;
    if (!(await this.providerSettings.passwordLogin(this.dataSource.manager, login.org))) {
      throw passwordLoginDisabled(login.org);
    }
    return undefined;
  }

  /** Who the provider says the person is now: the role follows their groups; the provider's next refresh token. */
  private async ssoRenewal(login: RenewableLogin): Promise<string> {
    const issuer = login.identityProvider!;
    const settings = await this.providerSettings.settings(this.dataSource.manager, login.org);
    if (!settings || settings.issuer !== issuer) {
      throw ssoRefused(issuer, `org "${login.org}" no longer signs in through it: sign in again`);
    }
    if (!login.upstreamRefreshToken)
      throw ssoRefused(issuer, 'it gave no refresh token at sign-in: sign in again');
    const answer = await this.providers.refresh(settings, login.upstreamRefreshToken);
    const identity = identityFromClaims(settings, answer.claims);
    if (identity.username !== login.username) {
      throw ssoRefused(issuer, `it now names the user "${identity.username}", not "${login.username}"`);
    }
    await this.ssoUsers.admit(login.org, issuer, identity);
    return answer.refreshToken!;
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
