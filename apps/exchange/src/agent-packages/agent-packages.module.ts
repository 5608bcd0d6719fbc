/**
 * Agent packages (.tar.gz with a `package.json` manifest), public across orgs.
 *
 * The bytes are stored in Postgres, in 1 MiB chunks beside the package row, rather than in the
 * NATS object store: the row, every byte and the change record commit in one transaction, so a
 * package announced on CAREEN_CHANGES is always downloadable and a failed upload leaves nothing
 * behind, with no second store to reconcile or back up. Packages are few and immutable, and a
 * range read touches only the chunks it needs. This module never extracts a package to disk
 * and never installs anything; agents verify size, sha256 and signature before installing.
 */
import { Module } from '@nestjs/common';
import { ChangeRecordingModule } from '../changes/change-recording.module';
import { AgentPackagesController } from './agent-packages.controller';
import { AgentPackagesService } from './agent-packages.service';
import { PackageContentStore } from './package-content.store';

@Module({
  imports: [ChangeRecordingModule],
  controllers: [AgentPackagesController],
  providers: [AgentPackagesService, PackageContentStore],
  exports: [AgentPackagesService],
})
export class AgentPackagesModule {}
