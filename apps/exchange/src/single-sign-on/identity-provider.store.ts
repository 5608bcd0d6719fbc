/**
 * Orgs' OpenID providers as rows, and whether each org still allows passwords: read, replaced
 * and removed within the caller's transaction.
 */
import { type Role } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type IdentityProviderResponse } from './dto/identity-provider.response';
import { type RoleMapping } from './sso-identity.rules';

/** What signing in through an org's provider needs. */
export interface ProviderSettings {
  org: string;
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  scopes: string[];
  groupsClaim: string;
  usernameClaim: string;
  roleMappings: RoleMapping[];
}

interface ProviderRow {
  org: string;
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string[];
  groups_claim: string;
  username_claim: string;
  role_mappings: { group: string; role: Role }[];
  updated_by: string;
  updated_at: Date;
  password_login: boolean;
}

const COLUMNS = `p.org, p.issuer, p.client_id, p.client_secret, p.scopes, p.groups_claim, p.username_claim,
  p.role_mappings, p.updated_by, p.updated_at, o.password_login`;

@Injectable()
export class IdentityProviderStore {
  async settings(manager: EntityManager, org: string): Promise<ProviderSettings | undefined> {
    const row = await this.row(manager, org);
    return row && settingsOf(row);
  }

  async answer(manager: EntityManager, org: string): Promise<IdentityProviderResponse | undefined> {
    const row = await this.row(manager, org);
    return row && answerOf(row);
  }

  async put(
    manager: EntityManager,
    settings: ProviderSettings,
    updatedBy: string,
  ): Promise<'created' | 'updated'> {
    const [row] = (await manager.query(
      `INSERT INTO exchange.identity_providers
         (org, issuer, client_id, client_secret, scopes, groups_claim, username_claim, role_mappings, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (org) DO UPDATE SET issuer = $2, client_id = $3, client_secret = $4, scopes = $5,
         groups_claim = $6, username_claim = $7, role_mappings = $8, updated_by = $9, updated_at = now()
       RETURNING (xmax = 0) AS inserted`,
      [
        settings.org,
        settings.issuer,
        settings.clientId,
        settings.clientSecret,
        settings.scopes,
        settings.groupsClaim,
        settings.usernameClaim,
        JSON.stringify(settings.roleMappings),
        updatedBy,
      ],
    )) as { inserted: boolean }[];
    return row!.inserted ? 'created' : 'updated';
  }

  /** Whether there was one to remove. */
  async remove(manager: EntityManager, org: string): Promise<boolean> {
    const [, count] = (await manager.query('DELETE FROM exchange.identity_providers WHERE org = $1', [
      org,
    ])) as [unknown, number];
    return count > 0;
  }

  /**
   * How the org's users sign in: whether with a password, and through which provider; an org
   * that does not exist reads as one with passwords only.
   */
  async signInOptions(
    manager: EntityManager,
    org: string,
  ): Promise<{ passwordLogin: boolean; issuer: string | null }> {
    const [row] = (await manager.query(
      `SELECT o.password_login, p.issuer
         FROM exchange.orgs o LEFT JOIN exchange.identity_providers p ON p.org = o.id WHERE o.id = $1`,
      [org],
    )) as { password_login: boolean; issuer: string | null }[];
    return { passwordLogin: row?.password_login ?? true, issuer: row?.issuer ?? null };
  }

  /** Whether the org's users may sign in with a password; true for an org that does not exist. */
  async passwordLogin(manager: EntityManager, org: string): Promise<boolean> {
    const [row] = (await manager.query('SELECT password_login FROM exchange.orgs WHERE id = $1', [org])) as {
      password_login: boolean;
    }[];
    return row?.password_login ?? true;
  }

  /** Whether that changed anything. */
  async setPasswordLogin(manager: EntityManager, org: string, allowed: boolean): Promise<boolean> {
    const [, count] = (await manager.query(
      'UPDATE exchange.orgs SET password_login = $2, updated_at = now() WHERE id = $1 AND password_login <> $2',
      [org, allowed],
    )) as [unknown, number];
    return count > 0;
  }

  private async row(manager: EntityManager, org: string): Promise<ProviderRow | undefined> {
    const [row] = (await manager.query(
      `SELECT ${COLUMNS} FROM exchange.identity_providers p JOIN exchange.orgs o ON o.id = p.org WHERE p.org = $1`,
      [org],
    )) as ProviderRow[];
    return row;
  }
}

function settingsOf(row: ProviderRow): ProviderSettings {
  return {
    org: row.org,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: row.client_secret,
    scopes: row.scopes,
    groupsClaim: row.groups_claim,
    usernameClaim: row.username_claim,
    roleMappings: row.role_mappings,
  };
}

function answerOf(row: ProviderRow): IdentityProviderResponse {
  return {
    org: row.org,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretSet: row.client_secret !== null,
    scopes: row.scopes,
    groupsClaim: row.groups_claim,
    usernameClaim: row.username_claim,
    roleMappings: row.role_mappings,
    passwordLogin: row.password_login,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at.toISOString(),
  };
}
