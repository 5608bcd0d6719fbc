/**
 * The exchange's own check of a service account's key, on every request that presents one (and
 * on every other service's, through its whoami): the key's row by id, its secret against the
 * stored digest, then its end and revocation. When it was last used is written at most once a
 * minute per key, not on every request.
 */
import {
  apiKeyMatches,
  AuthenticationError,
  AuthErrorCode,
  parseApiKey,
  type KeyAuthenticator,
  type ServicePrincipal,
} from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { keyState, type ApiKeyRow } from './api-key.row';

/** How stale a key's `lastUsedAt` may get before a use writes it again. */
const LAST_USED_RESOLUTION_SECONDS = 60;

type KeyCheckRow = Pick<
  ApiKeyRow,
  'id' | 'org' | 'account' | 'secret_digest' | 'scopes' | 'projects' | 'expires_at' | 'revoked_at'
> & {
  now: Date;
  stale: boolean;
};

@Injectable()
export class LocalKeyAuthenticator implements KeyAuthenticator {
  constructor(private readonly dataSource: DataSource) {}

  async authenticate(token: string): Promise<ServicePrincipal> {
    const parts = parseApiKey(token);
    if (!parts)
      throw new AuthenticationError(
        AuthErrorCode.MalformedCredentials,
        'a key is written ck_<16 hex digits>_<43 base64url characters>',
      );
    const [row] = (await this.dataSource.query(
      `SELECT id, org, account, secret_digest, scopes, projects, expires_at, revoked_at, now() AS now,
              coalesce(last_used_at < now() - make_interval(secs => $2), true) AS stale
         FROM exchange.api_keys WHERE id = $1`,
      [parts.id, LAST_USED_RESOLUTION_SECONDS],
    )) as KeyCheckRow[];
    if (!row || !apiKeyMatches(parts.secret, row.secret_digest))
      throw new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');
    const state = keyState(row, row.now);
    if (state === 'revoked')
      throw new AuthenticationError(AuthErrorCode.InvalidCredentials, `key ${row.id} was revoked`);
    if (state === 'expired')
      throw new AuthenticationError(
        AuthErrorCode.TokenExpired,
        `key ${row.id} expired at ${row.expires_at.toISOString()}`,
      );
    if (row.stale)
      await this.dataSource.query('UPDATE exchange.api_keys SET last_used_at = now() WHERE id = $1', [
        row.id,
      ]);
    const principal: ServicePrincipal = {
      kind: 'service',
      org: row.org,
      account: row.account,
      key: row.id,
      scopes: row.scopes,
    };
    return row.projects === null ? principal : { ...principal, projects: row.projects };
  }
}
