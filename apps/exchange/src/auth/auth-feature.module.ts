import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { SigningKeyStore } from '../keys/signing-key.store';
import { LocalBasicAuthenticator } from './local-basic.authenticator';
import { RefreshTokenStore } from './refresh-token.store';
import { RootBootstrap } from './root-bootstrap';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

/** Credentials of the exchange: signing keys, token issue and refresh, JWKS, and the hub admin bootstrap. */
@Module({
  imports: [ChangeRecordingModule],
  controllers: [TokenController],
  providers: [SigningKeyStore, LocalBasicAuthenticator, RefreshTokenStore, TokenService, RootBootstrap],
  exports: [SigningKeyStore, LocalBasicAuthenticator],
})
export class AuthFeatureModule {}
