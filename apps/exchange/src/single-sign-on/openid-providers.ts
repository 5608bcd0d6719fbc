/**
 * The exchange as an OpenID Connect client of each org's provider, through openid-client: the
 * provider's metadata discovered once per five minutes, the authorization URL with PKCE, and the
 * three grants that end in an identity token (authorization code, device code, refresh token).
 * Each answer is the identity token's claims and the provider's refresh token. The provider's
 * own refusals, unreachable providers and tokens that fail their checks become DomainErrors
 * that say which. Only network calls here, never inside a transaction.
 */
import { ExpiringCache } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { type ExchangeConfig } from '../exchange.config';
import { type SsoAuthorizeRequestDto, type SsoCodeRequestDto } from './dto/sso-sign-in.dto';
import { type ProviderSettings } from './identity-provider.store';
import { authorizationPending, providerUnavailable, slowDown, ssoRefused } from './sso.errors';

/** What a grant tells of the person: the identity token's claims, and how to ask again later. */
export interface ProviderAnswer {
  claims: Record<string, unknown>;
  refreshToken: string | undefined;
}

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const METADATA_TTL_MS = 5 * 60_000;
const REQUEST_TIMEOUT_SECONDS = 10;
/** RFC 8628's default wait between two asks, and what slow_down adds to it. */
const DEVICE_INTERVAL_SECONDS = 5;

/** Answers the network cannot be blamed for: the provider's word, or a token that failed its checks. */
const UNAVAILABLE_CODES = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON']);

@Injectable()
export class OpenIdProviders {
  private readonly configurations = new ExpiringCache<Promise<client.Configuration>>(256);

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig) {}

  /** Discovers the provider now (not from memory): how a new configuration is checked. */
  async check(settings: ProviderSettings): Promise<void> {
    await this.configuration(settings, true);
  }

  async authorizationUrl(settings: ProviderSettings, request: SsoAuthorizeRequestDto): Promise<string> {
    const configuration = await this.configuration(settings);
    return client
      .buildAuthorizationUrl(configuration, {
        redirect_uri: request.redirectUri,
        scope: settings.scopes.join(' '),
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
        state: request.state,
        nonce: request.nonce,
      })
      .toString();
  }

  async codeGrant(settings: ProviderSettings, request: SsoCodeRequestDto): Promise<ProviderAnswer> {
    const configuration = await this.configuration(settings);
    return this.answer(settings, () =>
      client.authorizationCodeGrant(configuration, new URL(request.callbackUrl), {
        pkceCodeVerifier: request.codeVerifier,
        expectedState: request.state,
        expectedNonce: request.nonce,
        idTokenExpected: true,
      }),
    );
  }

  async startDevice(settings: ProviderSettings): Promise<client.DeviceAuthorizationResponse> {
    const configuration = await this.configuration(settings);
    return this.call(settings, () =>
      client.initiateDeviceAuthorization(configuration, { scope: settings.scopes.join(' ') }),
    );
  }

  /** One ask whether the person approved the device code: never a wait. */
  async pollDevice(settings: ProviderSettings, deviceCode: string): Promise<ProviderAnswer> {
    const configuration = await this.configuration(settings);
    return this.answer(settings, () =>
      client.genericGrantRequest(configuration, DEVICE_CODE_GRANT, { device_code: deviceCode }),
    );
  }

  /** Asks the provider again who the person is now, with the refresh token of their sign-in. */
  async refresh(settings: ProviderSettings, refreshToken: string): Promise<ProviderAnswer> {
    const configuration = await this.configuration(settings);
    const answer = await this.call(settings, () => client.refreshTokenGrant(configuration, refreshToken));
    const claims =
      answer.claims() ??
      (await this.call(settings, () =>
        client.fetchUserInfo(configuration, answer.access_token, client.skipSubjectCheck),
      ));
    return { claims: { ...claims }, refreshToken: answer.refresh_token ?? refreshToken };
  }

  private async answer(
    settings: ProviderSettings,
    grant: () => Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers>,
  ): Promise<ProviderAnswer> {
    const tokens = await this.call(settings, grant);
    const claims = tokens.claims();
    if (!claims) throw ssoRefused(settings.issuer, 'its answer held no identity token');
    return { claims: { ...claims }, refreshToken: tokens.refresh_token };
  }

  private configuration(settings: ProviderSettings, fresh = false): Promise<client.Configuration> {
    const key = keyOf(settings);
    let configuration = fresh ? undefined : this.configurations.get(key);
    if (!configuration) {
      configuration = this.discover(settings);
      this.configurations.set(key, configuration, METADATA_TTL_MS);
      // A failed discovery is not kept: the next sign-in tries again.
      configuration.catch(() => this.configurations.set(key, configuration!, 0));
    }
    return configuration;
  }

  private async discover(settings: ProviderSettings): Promise<client.Configuration> {
    const configuration = await this.call(settings, () =>
      client.discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        settings.clientSecret === null ? client.None() : client.ClientSecretPost(settings.clientSecret),
        {
          timeout: REQUEST_TIMEOUT_SECONDS,
          execute: this.config.CAREEN_SSO_ALLOW_HTTP ? [client.allowInsecureRequests] : [],
        },
      ),
    );
    configuration.timeout = REQUEST_TIMEOUT_SECONDS;
    return configuration;
  }

  /** Runs a call to the provider, turning each way it can fail into the DomainError that says which. */
  private async call<T>(settings: ProviderSettings, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(settings.issuer, error);
    }
  }

  private failure(issuer: string, error: unknown): Error {
    if (error instanceof client.ResponseBodyError) {
      if (error.error === 'authorization_pending') return authorizationPending(DEVICE_INTERVAL_SECONDS);
      if (error.error === 'slow_down') return slowDown(2 * DEVICE_INTERVAL_SECONDS);
      return ssoRefused(
        issuer,
        `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`,
      );
    }
    if (error instanceof client.AuthorizationResponseError) {
      return ssoRefused(
        issuer,
        `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`,
      );
    }
    if (
      error instanceof client.ClientError &&
      !UNAVAILABLE_CODES.has(error.code ?? '') &&
      !networkFailure(error)
    ) {
      if (error.code === 'OAUTH_HTTP_REQUEST_FORBIDDEN') {
        return providerUnavailable(issuer, 'it is not https, and CAREEN_SSO_ALLOW_HTTP is off');
      }
      return ssoRefused(issuer, error.message);
    }
    return providerUnavailable(issuer, rootCause(error));
  }
}

/** The innermost cause, which says what the network did ("connect ECONNREFUSED …"); errors of any realm. */
function rootCause(error: unknown): unknown {
  let cause = error;
  while ((cause as { cause?: unknown } | undefined)?.cause !== undefined)
    cause = (cause as { cause: unknown }).cause;
  return cause;
}

/**
 * Whether the provider was never heard: no connection (fetch's TypeError, told by its name, as
 * it may come from another realm), or no answer in time.
 */
function networkFailure(error: client.ClientError): boolean {
  if (error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT') return true;
  return (error.cause as { name?: unknown } | undefined)?.name === 'TypeError';
}

/** A provider's settings as a cache key; the secret only as its digest. */
function keyOf(settings: ProviderSettings): string {
  const secret =
    settings.clientSecret === null ? '' : createHash('sha256').update(settings.clientSecret).digest('hex');
  return JSON.stringify([settings.issuer, settings.clientId, secret]);
}
