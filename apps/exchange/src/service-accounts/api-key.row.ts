/** A key's row as the exchange reads it, and how clients see it. */
import { type Scope } from '@careen/auth';
import { type ApiKeyResponse, type KeyState } from './dto/service-account.response';

export interface ApiKeyRow {
  id: string;
  org: string;
  account: string;
  secret_digest: string;
  scopes: Scope[];
  projects: string[] | null;
  expires_at: Date;
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  replaced_by: string | null;
}

export const API_KEY_COLUMNS =
  'id, org, account, secret_digest, scopes, projects, expires_at, created_by, created_at, last_used_at, revoked_at, replaced_by';

export function keyState(row: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now: Date): KeyState {
  if (row.revoked_at) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'active';
}

export function apiKeyResponse(row: ApiKeyRow, now: Date): ApiKeyResponse {
  return {
    id: row.id,
    scopes: row.scopes,
    projects: row.projects,
    state: keyState(row, now),
    expiresAt: row.expires_at.toISOString(),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    replacedBy: row.replaced_by,
  };
}
