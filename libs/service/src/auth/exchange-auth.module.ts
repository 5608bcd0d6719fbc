/**
 * Authentication for services other than the exchange: bearer tokens are verified locally
 * against the exchange's JWKS; Basic credentials are traded for a token at the exchange and
 * cached briefly; a service account's key is checked at the exchange on every request.
 */
import {
  AuthModule,
  CAREEN_TOKEN_AUDIENCE,
  CAREEN_TOKEN_ISSUER,
  ExchangeBasicAuthenticator,
  ExchangeKeyAuthenticator,
  JwksTokenVerifier,
  TOKEN_VERIFIER,
  type TokenVerifier,
} from '@careen/auth';
import { type DynamicModule } from '@nestjs/common';

export function exchangeAuthModule(exchangeUrl: string): DynamicModule {
  const base = new URL(exchangeUrl);
  return AuthModule.forRoot({
    verifier: {
      useFactory: () =>
        JwksTokenVerifier.remote(new URL('/v1/auth/jwks', base), {
          issuer: CAREEN_TOKEN_ISSUER,
          audience: CAREEN_TOKEN_AUDIENCE,
        }),
    },
    basicAuthenticator: {
      inject: [TOKEN_VERIFIER],
      useFactory: (verifier: TokenVerifier) => new ExchangeBasicAuthenticator(base, verifier),
    },
    keyAuthenticator: { useFactory: () => new ExchangeKeyAuthenticator(base) },
  });
}
