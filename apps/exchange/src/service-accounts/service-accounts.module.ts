import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { LocalKeyAuthenticator } from './local-key.authenticator';
import { ServiceAccountsController } from './service-accounts.controller';
import { ServiceAccountsService } from './service-accounts.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [ServiceAccountsController],
  providers: [ServiceAccountsService, LocalKeyAuthenticator],
  exports: [LocalKeyAuthenticator],
})
export class ServiceAccountsModule {}
