/**
 * The Careen user a person signed in by an org's provider is: made at their first sign-in, and
 * given the role their groups map to at each sign-in and renewal, each change recorded on the
 * feed as made by that person through that provider. A local user of the same name is never
 * taken over.
 */
import { type UserPrincipal } from '@careen/auth';
import { actAs } from '@careen/service';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { UserResponse } from '../users/dto/user.response';
import { UserEntity } from '../users/user.entity';
import { type SsoIdentity } from './sso-identity.rules';
import { localUserExists } from './sso.errors';

/** Stored in place of a password hash: no password matches it. */
const NO_PASSWORD = 'sso';

@Injectable()
export class SsoUsers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ChangeRecorder,
  ) {}

  admit(org: string, issuer: string, identity: SsoIdentity): Promise<UserPrincipal> {
    const principal: UserPrincipal = {
      kind: 'user',
      org,
      username: identity.username,
      role: identity.role,
      idp: issuer,
    };
    actAs(principal);
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(
        'SELECT role, identity_provider FROM exchange.users WHERE org = $1 AND username = $2 FOR UPDATE',
        [org, identity.username],
      )) as { role: string; identity_provider: string | null }[];
      if (row && row.identity_provider === null) throw localUserExists(org, identity.username);
      if (row && row.role === identity.role && row.identity_provider === issuer) return principal;
      await manager.query(
        `INSERT INTO exchange.users (org, username, role, password_hash, identity_provider)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org, username) DO UPDATE SET role = $3, identity_provider = $5`,
        [org, identity.username, identity.role, NO_PASSWORD, issuer],
      );
      const user = await manager.findOneOrFail(UserEntity, { where: { org, username: identity.username } });
      await this.changes.record(manager, {
        org,
        resource: 'user',
        resourceId: identity.username,
        operation: row ? 'updated' : 'created',
        data: UserResponse.from(user),
      });
      return principal;
    });
  }
}
