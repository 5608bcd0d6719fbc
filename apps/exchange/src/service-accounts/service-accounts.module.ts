import { Module } from '@nestjs/common';
import { BusCredentialsController } from '../bus-credentials/bus-credentials.controller';
import { BusCredentialsService } from '../bus-credentials/bus-credentials.service';
import { BusRevocations } from '../bus-credentials/bus-revocations';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { OrgsModule } from '../orgs/orgs.module';
import { LocalKeyAuthenticator } from './local-key.authenticator';
import { ServiceAccountsController } from './service-accounts.controller';
import { ServiceAccountsService } from './service-accounts.service';

@Module({
  imports: [ChangeRecordingModule, OrgsModule],
  controllers: [ServiceAccountsController, BusCredentialsController],
  providers: [ServiceAccountsService, LocalKeyAuthenticator, BusCredentialsService, BusRevocations],
  exports: [LocalKeyAuthenticator],
})
export class ServiceAccountsModule {}
