/** Users of an org: added, listed, read and removed, each change recorded on the feed. */
import { hashSecret, type Principal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsService } from '../orgs/orgs.service';
import { type CreateUserDto } from './dto/create-user.dto';
import { UserResponse, type UserListResponse } from './dto/user.response';
import { assertMayGrantRole, mayReadUser, ROOT_ORG, ROOT_USER } from './user-role.policy';
import { UserEntity } from './user.entity';
import { notYourRecord, protectedUser, userExists, userNotFound } from './users.errors';

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  async add(actor: Principal, org: string, input: CreateUserDto): Promise<UserResponse> {
    assertMayGrantRole(actor, org, input.role);
    const passwordHash = await hashSecret(input.password);
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      const inserted: unknown[] = await manager.query(
        `INSERT INTO exchange.users (org, username, role, password_hash) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING username`,
        [org, input.username, input.role, passwordHash],
      );
      if (inserted.length === 0) throw userExists(org, input.username);
      const user = UserResponse.from(
        await manager.findOneOrFail(UserEntity, { where: { org, username: input.username } }),
      );
      await this.changes.record(manager, {
        org,
        resource: 'user',
        resourceId: user.username,
        operation: 'created',
        data: user,
      });
      return user;
    });
  }

  async list(org: string): Promise<UserListResponse> {
    await this.orgs.require(this.dataSource.manager, org);
    const users = await this.dataSource.manager.find(UserEntity, {
      where: { org },
      order: { username: 'ASC' },
    });
    return { items: users.map(UserResponse.from), total: users.length };
  }

  /** A user reads their own record; admins read every user of their org. */
  async get(actor: Principal, org: string, username: string): Promise<UserResponse> {
    if (!mayReadUser(actor, org, username)) throw notYourRecord();
    const user = await this.dataSource.manager.findOne(UserEntity, { where: { org, username } });
    if (!user) throw userNotFound(org, username);
    return UserResponse.from(user);
  }

  async remove(org: string, username: string): Promise<void> {
    if (org === ROOT_ORG && username === ROOT_USER)
      throw protectedUser('the hub admin root/root cannot be removed');
    await this.dataSource.transaction(async (manager) => {
      const deleted: [unknown[], number] = await manager.query(
        'DELETE FROM exchange.users WHERE org = $1 AND username = $2',
        [org, username],
      );
      if (deleted[1] === 0) throw userNotFound(org, username);
      await this.changes.record(manager, {
        org,
        resource: 'user',
        resourceId: username,
        operation: 'deleted',
      });
    });
  }
}
