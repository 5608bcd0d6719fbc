/**
 * Installs authentication in a service: the token verifier, Basic and key authenticators the
 * app supplies, the AuthGuard on every route, and the start-up check that every write names its role. Import once, in the root module.
 */
import { type DynamicModule, type FactoryProvider, Module, type ModuleMetadata } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { type KeyAuthenticator } from '../api-key';
import { type BasicAuthenticator } from '../basic-authenticator';
import { type TokenVerifier } from '../token-verifier';
import { AuthGuard } from './auth.guard';
import { BASIC_AUTHENTICATOR, KEY_AUTHENTICATOR, TOKEN_VERIFIER } from './auth.tokens';
import { RoleDeclarationCheck } from './role-declarations';

type FactoryOf<T> = Pick<FactoryProvider<T>, 'useFactory' | 'inject'>;

export interface AuthModuleOptions {
  /** Modules whose providers the factories inject (config, the exchange's key store, ...). */
  imports?: ModuleMetadata['imports'];
  verifier: FactoryOf<TokenVerifier>;
  basicAuthenticator: FactoryOf<BasicAuthenticator>;
  keyAuthenticator: FactoryOf<KeyAuthenticator>;
}

@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    return {
      module: AuthModule,
      global: true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [
        {
          provide: TOKEN_VERIFIER,
          useFactory: options.verifier.useFactory,
          inject: options.verifier.inject ?? [],
        },
        {
          provide: BASIC_AUTHENTICATOR,
          useFactory: options.basicAuthenticator.useFactory,
          inject: options.basicAuthenticator.inject ?? [],
        },
        {
          provide: KEY_AUTHENTICATOR,
          useFactory: options.keyAuthenticator.useFactory,
          inject: options.keyAuthenticator.inject ?? [],
        },
        { provide: APP_GUARD, useClass: AuthGuard },
        RoleDeclarationCheck,
      ],
      exports: [TOKEN_VERIFIER, BASIC_AUTHENTICATOR, KEY_AUTHENTICATOR],
    };
  }
}
