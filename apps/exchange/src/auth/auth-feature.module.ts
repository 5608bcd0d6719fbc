import { Module } from '@nestjs/common';
import { ChangeRecorder } from '../changes/change-recorder';
import { SigningKeyStore } from '../keys/signing-key.store';
import { LocalBasicAuthenticator } from './local-basic.authenticator';
import { RootBootstrap } from './root-bootstrap';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

/** Credentials of the exchange: signing keys, token issue, JWKS, and the hub admin bootstrap. */
@Module({
  controllers: [TokenController],
  providers: [SigningKeyStore, LocalBasicAuthenticator, TokenService, RootBootstrap, ChangeRecorder],
  exports: [SigningKeyStore, LocalBasicAuthenticator],
})
export class AuthFeatureModule {}
