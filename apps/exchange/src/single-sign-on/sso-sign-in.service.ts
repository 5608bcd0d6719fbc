/**
 * Signing in through an org's provider, in the two ways Careen's clients use: the console's
 * authorization code with PKCE (the console keeps the verifier, the exchange redeems the code)
 * and the CLI's device authorization grant (the CLI keeps the device code and asks until the
 * person has approved it). Either ends in the person's groups, their role, and a Careen login
 * whose renewals ask the provider again (see TokenService).
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type TokenResponse } from '../auth/dto/token.response';
import { TokenService } from '../auth/token.service';
import { type SsoAuthorizeRequestDto, type SsoCodeRequestDto } from './dto/sso-sign-in.dto';
import {
  type SsoAuthorizeResponse,
  type SsoDeviceResponse,
  type SsoOptionsResponse,
} from './dto/sso.response';
import { IdentityProviderStore, type ProviderSettings } from './identity-provider.store';
import { OpenIdProviders, type ProviderAnswer } from './openid-providers';
import { identityFromClaims } from './sso-identity.rules';
import { SsoUsers } from './sso-users';
import { ssoNotConfigured } from './sso.errors';

@Injectable()
export class SsoSignInService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: IdentityProviderStore,
    private readonly providers: OpenIdProviders,
    private readonly users: SsoUsers,
    private readonly tokens: TokenService,
  ) {}

  /** What the sign-in page of an org offers; an org that does not exist reads as one with passwords only. */
  async options(org: string): Promise<SsoOptionsResponse> {
    return { org, ...(await this.store.signInOptions(this.dataSource.manager, org)) };
  }

  async authorize(org: string, request: SsoAuthorizeRequestDto): Promise<SsoAuthorizeResponse> {
    return { authorizationUrl: await this.providers.authorizationUrl(await this.settings(org), request) };
  }

  async codeSignIn(org: string, request: SsoCodeRequestDto): Promise<TokenResponse> {
    const settings = await this.settings(org);
    return this.signIn(settings, await this.providers.codeGrant(settings, request));
  }

  async startDevice(org: string): Promise<SsoDeviceResponse> {
    const answer = await this.providers.startDevice(await this.settings(org));
    return {
      deviceCode: answer.device_code,
      userCode: answer.user_code,
      verificationUri: answer.verification_uri,
      ...(answer.verification_uri_complete && { verificationUriComplete: answer.verification_uri_complete }),
      expiresIn: answer.expires_in,
      interval: answer.interval ?? 5,
    };
  }

  async deviceSignIn(org: string, deviceCode: string): Promise<TokenResponse> {
    const settings = await this.settings(org);
    return this.signIn(settings, await this.providers.pollDevice(settings, deviceCode));
  }

  private async signIn(settings: ProviderSettings, answer: ProviderAnswer): Promise<TokenResponse> {
    const identity = identityFromClaims(settings, answer.claims);
    const principal = await this.users.admit(settings.org, settings.issuer, identity);
    return this.tokens.issue(principal, new Date(), answer.refreshToken);
  }

  private async settings(org: string): Promise<ProviderSettings> {
    const settings = await this.store.settings(this.dataSource.manager, org);
    if (!settings) throw ssoNotConfigured(org);
    return settings;
  }
}
