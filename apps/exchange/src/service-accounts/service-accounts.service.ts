/**
 * Service accounts of an org and their keys: made, listed, rotated with an overlap, revoked and
 * removed, each change recorded on the feed (never a secret). A key's secret exists only in the
 * answer that makes it. Once a key is revoked or an account removed, the bus users issued to its
 * keys are revoked on the bus before the answer.
 */
import { generateApiKey, principalId, type Principal } from '@careen/auth';
import { type ChangeContractOf, type ChangeOperation } from '@careen/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { BusRevocations } from '../bus-credentials/bus-revocations';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsService } from '../orgs/orgs.service';
import { API_KEY_COLUMNS, apiKeyResponse, keyState, type ApiKeyRow } from './api-key.row';
import {
  DEFAULT_KEY_DAYS,
  type CreateApiKeyDto,
  type CreateServiceAccountDto,
  type RotateApiKeyDto,
} from './dto/service-account.dto';
import {
  type ApiKeyResponse,
  type NewApiKeyResponse,
  type RotatedApiKeyResponse,
  type ServiceAccountListResponse,
  type ServiceAccountResponse,
} from './dto/service-account.response';
import {
  apiKeyEnded,
  apiKeyNotFound,
  serviceAccountExists,
  serviceAccountNotFound,
} from './service-accounts.errors';

const ACCOUNT_COLUMNS = 'org, name, description, created_by, created_at';

interface AccountRow {
  org: string;
  name: string;
  description: string | null;
  created_by: string;
  created_at: Date;
}

@Injectable()
export class ServiceAccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
    private readonly busRevocations: BusRevocations,
  ) {}

  create(actor: Principal, org: string, input: CreateServiceAccountDto): Promise<ServiceAccountResponse> {
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      const [row] = (await manager.query(
        `INSERT INTO exchange.service_accounts (org, name, description, created_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
        [org, input.name, input.description ?? null, principalId(actor)],
      )) as AccountRow[];
      if (!row) throw serviceAccountExists(org, input.name);
      const account = accountResponse(row, [], new Date());
      await this.record(manager, org, 'serviceAccount', account.name, 'created', account);
      return account;
    });
  }

  async list(org: string): Promise<ServiceAccountListResponse> {
    const manager = this.dataSource.manager;
    await this.orgs.require(manager, org);
    const accounts = (await manager.query(
      `SELECT ${ACCOUNT_COLUMNS} FROM exchange.service_accounts WHERE org = $1 ORDER BY name`,
      [org],
    )) as AccountRow[];
    const { keys, now } = await this.keysOf(manager, org);
    const items = accounts.map((account) =>
      accountResponse(
        account,
        keys.filter((key) => key.account === account.name),
        now,
      ),
    );
    return { items, total: items.length };
  }

  async get(org: string, name: string): Promise<ServiceAccountResponse> {
    const manager = this.dataSource.manager;
    const account = await this.account(manager, org, name);
    const { keys, now } = await this.keysOf(manager, org, name);
    return accountResponse(account, keys, now);
  }

  async remove(org: string, name: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [, count] = (await manager.query(
        'DELETE FROM exchange.service_accounts WHERE org = $1 AND name = $2',
        [org, name],
      )) as [unknown, number];
      if (count === 0) throw serviceAccountNotFound(org, name);
      await this.record(manager, org, 'serviceAccount', name, 'deleted');
    });
    await this.busRevocations.sync();
  }

  createKey(actor: Principal, org: string, name: string, input: CreateApiKeyDto): Promise<NewApiKeyResponse> {
    return this.dataSource.transaction(async (manager) => {
      await this.account(manager, org, name, true);
      return this.insertKey(manager, actor, org, name, input, input.expiresInDays);
    });
  }

  /**
   * A new key with the same scopes and projects; the previous one keeps working for `overlapSeconds` more
   * (never past its own end), then ends. A revoked or expired key is not rotated.
   */
  rotateKey(
    actor: Principal,
    org: string,
    name: string,
    id: string,
    input: RotateApiKeyDto,
  ): Promise<RotatedApiKeyResponse> {
    return this.dataSource.transaction(async (manager) => {
      const previous = await this.lockedKey(manager, org, name, id);
      const state = keyState(previous.row, previous.now);
      if (state !== 'active') throw apiKeyEnded(id, state);
      const key = await this.insertKey(manager, actor, org, name, previous.row, input.expiresInDays);
      const [[ended]] = (await manager.query(
        `UPDATE exchange.api_keys
            SET expires_at = least(expires_at, now() + make_interval(secs => $2)), replaced_by = $3
          WHERE id = $1 RETURNING ${API_KEY_COLUMNS}`,
        [id, input.overlapSeconds, key.id],
      )) as [ApiKeyRow[], number];
      const answer = apiKeyResponse(ended!, previous.now);
      await this.record(manager, org, 'apiKey', id, 'updated', { account: name, ...answer });
      return { key, previous: answer };
    });
  }

  /** Ends the key now; revoking a revoked key changes nothing. */
  async revokeKey(org: string, name: string, id: string): Promise<ApiKeyResponse> {
    const answer = await this.dataSource.transaction(async (manager) => {
      const { row, now } = await this.lockedKey(manager, org, name, id);
      if (row.revoked_at) return apiKeyResponse(row, now);
      const [[revoked]] = (await manager.query(
        `UPDATE exchange.api_keys SET revoked_at = now() WHERE id = $1 RETURNING ${API_KEY_COLUMNS}`,
        [id],
      )) as [ApiKeyRow[], number];
      const answer = apiKeyResponse(revoked!, now);
      await this.record(manager, org, 'apiKey', id, 'updated', { account: name, ...answer });
      return answer;
    });
    await this.busRevocations.sync();
    return answer;
  }

  private async insertKey(
    manager: EntityManager,
    actor: Principal,
    org: string,
    account: string,
    limits: { scopes: readonly string[]; projects?: readonly string[] | null },
    days = DEFAULT_KEY_DAYS,
  ): Promise<NewApiKeyResponse> {
    const { id, key, digest } = generateApiKey();
    const [row] = (await manager.query(
      `INSERT INTO exchange.api_keys (id, org, account, secret_digest, scopes, projects, expires_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7), $8) RETURNING ${API_KEY_COLUMNS}`,
      [id, org, account, digest, limits.scopes, limits.projects ?? null, days, principalId(actor)],
    )) as ApiKeyRow[];
    const answer = apiKeyResponse(row!, row!.created_at);
    await this.record(manager, org, 'apiKey', id, 'created', { account, ...answer });
    return { ...answer, key };
  }

  private async account(
    manager: EntityManager,
    org: string,
    name: string,
    lock = false,
  ): Promise<AccountRow> {
    const [row] = (await manager.query(
      `SELECT ${ACCOUNT_COLUMNS} FROM exchange.service_accounts
        WHERE org = $1 AND name = $2${lock ? ' FOR KEY SHARE' : ''}`,
      [org, name],
    )) as AccountRow[];
    if (!row) throw serviceAccountNotFound(org, name);
    return row;
  }

  private async lockedKey(
    manager: EntityManager,
    org: string,
    account: string,
    id: string,
  ): Promise<{ row: ApiKeyRow; now: Date }> {
    const [row] = (await manager.query(
      `SELECT ${API_KEY_COLUMNS}, now() AS now FROM exchange.api_keys
        WHERE id = $1 AND org = $2 AND account = $3 FOR UPDATE`,
      [id, org, account],
    )) as (ApiKeyRow & { now: Date })[];
    if (!row) {
      await this.account(manager, org, account);
      throw apiKeyNotFound(org, account, id);
    }
    return { row, now: row.now };
  }

  /** The keys, and the database's now, by which each is active, expired or revoked. */
  private async keysOf(
    manager: EntityManager,
    org: string,
    account?: string,
  ): Promise<{ keys: ApiKeyRow[]; now: Date }> {
    const keys = (await manager.query(
      `SELECT ${API_KEY_COLUMNS}, now() AS now FROM exchange.api_keys
        WHERE org = $1 AND ($2::text IS NULL OR account = $2) ORDER BY created_at DESC, id`,
      [org, account ?? null],
    )) as (ApiKeyRow & { now: Date })[];
    // No key, no state to judge: any instant serves.
    return { keys, now: keys[0]?.now ?? new Date() };
  }

  private record<R extends 'serviceAccount' | 'apiKey'>(
    manager: EntityManager,
    org: string,
    resource: R,
    resourceId: string,
    operation: ChangeOperation,
    data?: ChangeContractOf<R>,
  ): Promise<void> {
    return this.changes.record(manager, { org, resource, resourceId, operation, data });
  }
}

function accountResponse(row: AccountRow, keys: ApiKeyRow[], now: Date): ServiceAccountResponse {
  return {
    org: row.org,
    name: row.name,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    keys: keys.map((key) => apiKeyResponse(key, now)),
  };
}
