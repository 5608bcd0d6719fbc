import { AuthModule, CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, JwksTokenVerifier } from '@careen/auth';
import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { AuthFeatureModule } from './auth/auth-feature.module';
import { ChangesModule } from './changes/changes.module';
import { LocalBasicAuthenticator } from './auth/local-basic.authenticator';
import { type ExchangeConfig } from './exchange.config';
import { SigningKeyStore } from './keys/signing-key.store';
import { SigningKeyEntity } from './keys/signing-key.entity';
import { InitExchange1763769600000 } from './migrations/1763769600000-init-exchange';
import { OrgEntity } from './orgs/org.entity';
import { OrgsModule } from './orgs/orgs.module';
import { UserEntity } from './users/user.entity';
import { UsersModule } from './users/users.module';

export const EXCHANGE_ENTITIES = [OrgEntity, UserEntity, SigningKeyEntity, OutboxMessageEntity];
export const EXCHANGE_MIGRATIONS = [InitExchange1763769600000];

@Module({})
export class ExchangeModule {
  static forRoot(config: ExchangeConfig, logger: JsonLogger): DynamicModule {
    return {
      module: ExchangeModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'exchange',
          config,
          entities: EXCHANGE_ENTITIES,
          migrations: EXCHANGE_MIGRATIONS,
          streams: [STREAMS.changes, STREAMS.deadLetters],
          relayOutbox: true,
        }),
        AuthModule.forRoot({
          imports: [AuthFeatureModule],
          verifier: {
            inject: [SigningKeyStore],
            useFactory: (keys: SigningKeyStore) =>
              JwksTokenVerifier.local(() => keys.jwks(), {
                issuer: CAREEN_TOKEN_ISSUER,
                audience: CAREEN_TOKEN_AUDIENCE,
              }),
          },
          basicAuthenticator: {
            inject: [LocalBasicAuthenticator],
            useFactory: (local: LocalBasicAuthenticator) => local,
          },
        }),
        AuthFeatureModule,
        OrgsModule,
        UsersModule,
        ChangesModule,
      ],
    };
  }
}
