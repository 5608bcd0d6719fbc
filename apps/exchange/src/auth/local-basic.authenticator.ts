/**
 * Checks Basic credentials against the exchange's own users. A wrong user name costs the
 * same hash work as a wrong password, so the answer's timing does not reveal which users exist.
 */
import {
  AuthenticationError,
  AuthErrorCode,
  verifySecret,
  type BasicAuthenticator,
  type Principal,
} from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UserEntity } from '../users/user.entity';

const UNKNOWN_USER_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

@Injectable()
export class LocalBasicAuthenticator implements BasicAuthenticator {
  constructor(private readonly dataSource: DataSource) {}

  async authenticate(org: string, id: string, secret: string): Promise<Principal> {
    const user = await this.dataSource.manager.findOne(UserEntity, { where: { org, username: id } });
    const valid = await verifySecret(secret, user?.passwordHash ?? UNKNOWN_USER_HASH);
    if (!user || !valid)
      throw new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');
    return { kind: 'user', org: user.org, username: user.username, role: user.role };
  }
}
