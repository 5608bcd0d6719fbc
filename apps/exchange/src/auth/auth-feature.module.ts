import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { SigningKeyStore } from '../keys/signing-key.store';
import { SingleSignOnModule } from '../single-sign-on/single-sign-on.module';
import { SsoSignInService } from '../single-sign-on/sso-sign-in.service';
import { SsoController } from '../single-sign-on/sso.controller';
import { LocalBasicAuthenticator } from './local-basic.authenticator';
import { LoginRenewal } from './login-renewal';
import { RefreshTokenStore } from './refresh-token.store';
import { RootBootstrap } from './root-bootstrap';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

/**
 * Credentials of the exchange: signing keys, token issue and refresh, JWKS, the hub admin
 * bootstrap, and signing in through an org's OpenID provider.
 */
@Module({
  imports: [ChangeRecordingModule, SingleSignOnModule],
  controllers: [TokenController, SsoController],
  providers: [
    SigningKeyStore,
    LocalBasicAuthenticator,
    RefreshTokenStore,
    TokenService,
    LoginRenewal,
    RootBootstrap,
    SsoSignInService,
  ],
  exports: [SigningKeyStore, LocalBasicAuthenticator],
})
export class AuthFeatureModule {}
