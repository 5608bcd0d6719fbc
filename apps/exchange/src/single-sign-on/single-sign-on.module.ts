import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { IdentityProviderController } from './identity-provider.controller';
import { IdentityProviderStore } from './identity-provider.store';
import { IdentityProvidersService } from './identity-providers.service';
import { OpenIdProviders } from './openid-providers';
import { SsoUsers } from './sso-users';

/** Orgs' OpenID providers: their configuration, the calls to them, and the users they sign in. */
@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [IdentityProviderController],
  providers: [IdentityProviderStore, OpenIdProviders, SsoUsers, IdentityProvidersService],
  exports: [IdentityProviderStore, OpenIdProviders, SsoUsers],
})
export class SingleSignOnModule {}
