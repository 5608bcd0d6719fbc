/**
 * Makes sure the `root` org and its hub admin `root` exist. The password comes from
 * CAREEN_ROOT_PASSWORD (and follows it when changed), or is generated and printed once.
 */
import { generateSecret, hashSecret, verifySecret } from '@careen/auth';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { type ExchangeConfig } from '../exchange.config';
import { ROOT_ORG, ROOT_USER } from '../users/user-role.policy';
import { UserEntity } from '../users/user.entity';

@Injectable()
export class RootBootstrap implements OnApplicationBootstrap {
  constructor(
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    private readonly dataSource: DataSource,
    private readonly changes: ChangeRecorder,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const generated = await this.dataSource.transaction(async (manager) => {
      await manager.query("SELECT pg_advisory_xact_lock(hashtext('careen:exchange:root-bootstrap'))");
      const orgs: unknown[] = await manager.query(
        `INSERT INTO exchange.orgs (id, label) VALUES ($1, 'Hub administration') ON CONFLICT DO NOTHING RETURNING id`,
        [ROOT_ORG],
      );
      if (orgs.length > 0) {
        await this.changes.record(manager, {
          org: ROOT_ORG,
          resource: 'org',
          resourceId: ROOT_ORG,
          operation: 'created',
        });
      }
      const existing = await manager.findOne(UserEntity, { where: { org: ROOT_ORG, username: ROOT_USER } });
      const wanted = this.config.CAREEN_ROOT_PASSWORD;
      if (existing) {
        if (wanted && !(await verifySecret(wanted, existing.passwordHash))) {
          await manager.update(
            UserEntity,
            { org: ROOT_ORG, username: ROOT_USER },
            { passwordHash: await hashSecret(wanted) },
          );
        }
        return undefined;
      }
      const password = wanted ?? generateSecret(18);
      await manager.insert(UserEntity, {
        org: ROOT_ORG,
        username: ROOT_USER,
        role: 'hubAdmin',
        passwordHash: await hashSecret(password),
      });
      await this.changes.record(manager, {
        org: ROOT_ORG,
        resource: 'user',
        resourceId: ROOT_USER,
        operation: 'created',
      });
      return wanted ? undefined : password;
    });
    if (generated) {
      // Printed once, on the run that created the hub admin; it is stored only as a hash.
      this.logger.warn(
        { org: ROOT_ORG, username: ROOT_USER, password: generated },
        'generated the hub admin password; store it now',
      );
    }
  }
}
