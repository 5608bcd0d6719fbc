/**
 * Users' logins as rows of refresh tokens: starting one, trading a token for the next of its
 * login, and ending a login. Only hashes are stored; the rules of what may renew are in
 * refresh-token.rules.
 */
import { type UserPrincipal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { hashRefreshToken, newRefreshToken, refreshRefusal } from './refresh-token.rules';

export interface IssuedRefreshToken {
  refreshToken: string;
  /** When the login ends, whichever token of it is presented. */
  expiresAt: Date;
}

interface RefreshTokenRow {
  family: string;
  org: string;
  username: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  upstream_refresh_token: string | null;
}

/** A login a refresh token may renew, as its renewal needs to know it before renewing. */
export interface RenewableLogin {
  org: string;
  username: string;
  /** The issuer of the provider the user signs in through; null for a password login. */
  identityProvider: string | null;
  /** The provider's refresh token, with which the renewal asks the provider again. */
  upstreamRefreshToken: string | null;
}

@Injectable()
export class RefreshTokenStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A new login of `user`, lasting until `expiresAt`; the user's logins that ended are cleared.
   * `upstream`: the refresh token of the provider that signed the user in, if one did.
   */
  start(
    user: { org: string; username: string },
    expiresAt: Date,
    now: Date,
    upstream?: string,
  ): Promise<IssuedRefreshToken> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        'DELETE FROM exchange.refresh_tokens WHERE org = $1 AND username = $2 AND expires_at <= $3',
        [user.org, user.username, now],
      );
      return this.insert(manager, randomUUID(), user, expiresAt, upstream ?? null);
    });
  }

  /** The login `token` would renew, refused as `rotate` would refuse it; nothing is locked or used up. */
  async login(token: string, now: Date): Promise<RenewableLogin> {
    const [row] = (await this.dataSource.query(
      `SELECT r.org, r.username, r.expires_at, r.used_at, r.revoked_at, r.upstream_refresh_token,
              u.identity_provider
         FROM exchange.refresh_tokens r JOIN exchange.users u USING (org, username)
        WHERE r.token_hash = $1`,
      [hashRefreshToken(token)],
    )) as (RefreshTokenRow & { identity_provider: string | null })[];
    const refusal = refreshRefusal(
      row && { expiresAt: row.expires_at, usedAt: row.used_at, revokedAt: row.revoked_at },
      now,
    );
    if (refusal) throw refusal;
    return {
      org: row!.org,
      username: row!.username,
      identityProvider: row!.identity_provider,
      upstreamRefreshToken: row!.upstream_refresh_token,
    };
  }

  /**
   * Uses `token` up and answers the next token of its login, with the user as they are now (a
   * changed role shows in the next access token); an AuthenticationError says why it may not.
   * `upstream`: the provider's refresh token to keep with the next one, when it changed.
   */
  rotate(
    token: string,
    now: Date,
    upstream?: string,
  ): Promise<IssuedRefreshToken & { principal: UserPrincipal }> {
    return this.dataSource.transaction(async (manager) => {
      const tokenHash = hashRefreshToken(token);
      // Locked, so that two requests with the same token cannot both renew.
      const [row] = (await manager.query(
        `SELECT family, org, username, expires_at, used_at, revoked_at, upstream_refresh_token
           FROM exchange.refresh_tokens WHERE token_hash = $1 FOR UPDATE`,
        [tokenHash],
      )) as RefreshTokenRow[];
      const refusal = refreshRefusal(
        row && { expiresAt: row.expires_at, usedAt: row.used_at, revokedAt: row.revoked_at },
        now,
      );
      if (refusal) throw refusal;
      // refreshRefusal refuses an unknown token, so this only narrows the type.
      if (!row) throw new Error('an unknown refresh token was not refused');
      const user = await manager.findOneOrFail(UserEntity, {
        where: { org: row.org, username: row.username },
      });
      await manager.query('UPDATE exchange.refresh_tokens SET used_at = $2 WHERE token_hash = $1', [
        tokenHash,
        now,
      ]);
      const next = await this.insert(
        manager,
        row.family,
        user,
        row.expires_at,
        upstream ?? row.upstream_refresh_token,
      );
      const principal: UserPrincipal = {
        kind: 'user',
        org: user.org,
        username: user.username,
        role: user.role,
      };
      return {
        ...next,
        principal: user.identityProvider ? { ...principal, idp: user.identityProvider } : principal,
      };
    });
  }

  /** Ends the login `token` belongs to; a token that names none ends nothing. */
  revoke(token: string, now: Date): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query('SELECT family FROM exchange.refresh_tokens WHERE token_hash = $1', [
        hashRefreshToken(token),
      ])) as { family: string }[];
      if (!row) return;
      // Waits for a renewal of this login under way: the update, a statement of its own, then
      // sees the token that renewal made, which would otherwise outlive the logout.
      await manager.query('SELECT 1 FROM exchange.refresh_tokens WHERE family = $1 FOR UPDATE', [row.family]);
      await manager.query(
        'UPDATE exchange.refresh_tokens SET revoked_at = $2 WHERE family = $1 AND revoked_at IS NULL',
        [row.family, now],
      );
    });
  }

  private async insert(
    manager: EntityManager,
    family: string,
    user: { org: string; username: string },
    expiresAt: Date,
    upstream: string | null,
  ): Promise<IssuedRefreshToken> {
    const { token, tokenHash } = newRefreshToken();
    await manager.query(
      `INSERT INTO exchange.refresh_tokens (token_hash, family, org, username, expires_at, upstream_refresh_token)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [tokenHash, family, user.org, user.username, expiresAt, upstream],
    );
    return { refreshToken: token, expiresAt };
  }
}
