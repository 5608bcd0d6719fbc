/**
 * Whether a user's login may be renewed now, asked before each renewal: a password login while
 * its org still allows passwords; a login made through an org's OpenID provider once the
 * provider, asked again with its refresh token (outside any transaction), still knows the person
 * and one of their groups gives a role, which becomes their role now. A refusal says why.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdentityProviderStore } from '../single-sign-on/identity-provider.store';
import { OpenIdProviders } from '../single-sign-on/openid-providers';
import { identityFromClaims } from '../single-sign-on/sso-identity.rules';
import { SsoUsers } from '../single-sign-on/sso-users';
import { passwordLoginDisabled, ssoRefused } from '../single-sign-on/sso.errors';
import { keepsPassword } from '../users/user-role.policy';
import { type RenewableLogin } from './refresh-token.store';

@Injectable()
export class LoginRenewal {
  constructor(
    private readonly dataSource: DataSource,
    private readonly providerSettings: IdentityProviderStore,
    private readonly providers: OpenIdProviders,
    private readonly ssoUsers: SsoUsers,
  ) {}

  /** The provider's next refresh token for a login of single sign-on; nothing for a password login. */
  check(login: RenewableLogin): Promise<string | undefined> {
    return login.identityProvider === null
      ? this.passwordLogin(login)
      : this.ssoLogin(login, login.identityProvider);
  }

  private async passwordLogin(login: RenewableLogin): Promise<undefined> {
    if (keepsPassword(login)) return undefined;
    if (!(await this.providerSettings.passwordLogin(this.dataSource.manager, login.org))) {
      throw passwordLoginDisabled(login.org);
    }
    return undefined;
  }

  private async ssoLogin(login: RenewableLogin, issuer: string): Promise<string> {
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
}
