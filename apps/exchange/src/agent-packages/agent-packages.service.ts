/**
 * Agent packages: checked on upload, stored with their bytes and change record in one
 * transaction, listed newest version first, and read back by byte range. Packages are public
 * across orgs; uploading one changes nothing on any node until a management policy selects it.
 */
import { createReadStream } from 'node:fs';
import { type Readable } from 'node:stream';
import { principalId, type Principal } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import semver from 'semver';
import { DataSource } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { type ExchangeConfig } from '../exchange.config';
import { ROOT_ORG } from '../users/user-role.policy';
import { AgentPackageEntity } from './agent-package.entity';
import { packageExists, packageInUse, packageNotFound, packageTooLarge } from './agent-packages.errors';
import { type AgentPackageListResponse, AgentPackageResponse } from './dto/agent-package.response';
import { inspectAgentPackage } from './package-archive';
import { CHUNK_SIZE, PackageContentStore } from './package-content.store';
import { spoolPackage } from './package-spool';

export interface PackageUpload {
  body: Readable;
  /** The Content-Length the client announced, if any: refused at once when over the limit. */
  declaredLength?: number;
  signature?: Buffer;
}

export interface PackageContent {
  package: AgentPackageResponse;
  read(start: number, end: number): AsyncGenerator<Buffer>;
}

/** A change subject token: semver precedence (no build metadata) with dots as underscores. */
export function packageResourceId(precedence: string): string {
  return precedence.replace(/\./g, '_');
}

@Injectable()
export class AgentPackagesService {
  private readonly maxBytes: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly content: PackageContentStore,
    private readonly changes: ChangeRecorder,
    @Inject(SERVICE_CONFIG) config: ExchangeConfig,
  ) {
    this.maxBytes = config.CAREEN_AGENT_PACKAGE_MAX_BYTES;
  }

  async publish(actor: Principal, upload: PackageUpload): Promise<AgentPackageResponse> {
    if (upload.declaredLength !== undefined && upload.declaredLength > this.maxBytes) {
      throw packageTooLarge(this.maxBytes);
    }
    const spooled = await spoolPackage(upload.body, this.maxBytes);
    try {
      const manifest = await inspectAgentPackage(createReadStream(spooled.path));
      const precedence = semver.parse(manifest.version)?.version ?? manifest.version;
      return await this.dataSource.transaction(async (manager) => {
        const inserted: unknown[] = await manager.query(
          `INSERT INTO exchange.agent_packages
             (version, precedence, manifest, sha256, size, chunk_size, signature, uploaded_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT DO NOTHING RETURNING version`,
          [
            manifest.version,
            precedence,
            JSON.stringify(manifest),
            spooled.sha256,
            spooled.size,
            CHUNK_SIZE,
            upload.signature ?? null,
            principalId(actor),
          ],
        );
        if (inserted.length === 0) {
          const existing = await manager.findOne(AgentPackageEntity, {
            where: [{ version: manifest.version }, { precedence }],
          });
          throw packageExists(manifest.version, existing?.version ?? manifest.version);
        }
        await this.content.write(manager, manifest.version, spooled.path);
        const stored = AgentPackageResponse.from(
          await manager.findOneOrFail(AgentPackageEntity, { where: { version: manifest.version } }),
        );
        await this.changes.record(manager, {
          org: ROOT_ORG,
          resource: 'agentPackage',
          resourceId: packageResourceId(precedence),
          operation: 'created',
          data: stored,
        });
        return stored;
      });
    } finally {
      await spooled.discard();
    }
  }

  async list(): Promise<AgentPackageListResponse> {
    const packages = await this.dataSource.manager.find(AgentPackageEntity);
    const items = packages
      .sort((a, b) => semver.rcompare(a.version, b.version) || b.version.localeCompare(a.version))
      .map(AgentPackageResponse.from);
    return { items, total: items.length };
  }

  async get(version: string): Promise<AgentPackageResponse> {
    return AgentPackageResponse.from(await this.require(version));
  }

  async openContent(version: string): Promise<PackageContent> {
    const entity = await this.require(version);
    return {
      package: AgentPackageResponse.from(entity),
      read: (start, end) => this.content.read(entity, start, end),
    };
  }

  /**
   * Removes a package and its bytes. Refused while an enabled management policy of any org
   * names this exact version (its nodes would fail to download it); a policy that follows
   * `current` moves on to the newest package left.
   */
  async remove(version: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const entity = await manager.findOne(AgentPackageEntity, {
        where: { version },
        lock: { mode: 'pessimistic_write' },
      });
      if (!entity) throw packageNotFound(version);
      const users: { org: string; name: string }[] = await manager.query(
        `SELECT org, name FROM exchange.management_policies
         WHERE enabled AND agent_upgrade_policy ->> 'atLeastVersion' IN ($1, $2) ORDER BY org, name`,
        [entity.version, entity.precedence],
      );
      if (users.length > 0)
        throw packageInUse(
          entity.version,
          users.map((nmp) => `${nmp.org}/${nmp.name}`),
        );
      await manager.delete(AgentPackageEntity, { version: entity.version });
      await this.changes.record(manager, {
        org: ROOT_ORG,
        resource: 'agentPackage',
        resourceId: packageResourceId(entity.precedence),
        operation: 'deleted',
      });
    });
  }

  private async require(version: string): Promise<AgentPackageEntity> {
    const entity = await this.dataSource.manager.findOne(AgentPackageEntity, { where: { version } });
    if (!entity) throw packageNotFound(version);
    return entity;
  }
}
