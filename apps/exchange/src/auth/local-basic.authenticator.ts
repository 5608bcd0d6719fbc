/**
 * Checks Basic credentials against the exchange's own users and nodes: `org/id:secret` is a
 * user when such a user exists and the password matches, otherwise a node with that id and
 * token. An id that names neither costs the same hash work as a wrong secret, so the answer's
 * timing does not reveal which users or nodes exist. A deleted node's credentials stop working
 * at once; access tokens issued to it before expire on their own. A node token that matched
 * once is checked from memory while its stored hash is unchanged (see VerifiedSecrets).
 */
import {
  AuthenticationError,
  AuthErrorCode,
  verifySecret,
  VerifiedSecrets,
  type BasicAuthenticator,
  type NodePrincipal,
  type Principal,
  type UserPrincipal,
} from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NodeEntity } from '../nodes/node.entity';
import { IdentityProviderStore } from '../single-sign-on/identity-provider.store';
import { passwordLoginDisabled } from '../single-sign-on/sso.errors';
import { keepsPassword } from '../users/user-role.policy';
import { UserEntity } from '../users/user.entity';

const UNKNOWN_SECRET_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

const invalidCredentials = () =>
  new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');

@Injectable()
export class LocalBasicAuthenticator implements BasicAuthenticator {
  /** Node tokens an agent presents again and again: checked with scrypt once per token. */
  private readonly nodeTokens = new VerifiedSecrets();

  constructor(
    private readonly dataSource: DataSource,
    private readonly providers: IdentityProviderStore,
  ) {}

  async authenticate(org: string, id: string, secret: string): Promise<Principal> {
    const [user, node] = await Promise.all([
      this.dataSource.manager.findOne(UserEntity, { where: { org, username: id } }),
      this.dataSource.manager.findOne(NodeEntity, { where: { org, id }, select: ['org', 'id', 'tokenHash'] }),
    ]);
    if (user && (await verifySecret(secret, user.passwordHash))) return this.passwordUser(user);
    if (node && (await this.nodeTokens.matches(secret, node.tokenHash))) return this.nodePrincipal(node);
    if (!user && !node) await verifySecret(secret, UNKNOWN_SECRET_HASH);
    throw invalidCredentials();
  }

  /** `{org, username, password}` of POST /v1/auth/token: users only. */
  async authenticateUser(org: string, username: string, password: string): Promise<UserPrincipal> {
    const user = await this.dataSource.manager.findOne(UserEntity, { where: { org, username } });
    // A user of single sign-on has no password: the same hash work as for an unknown user.
    const usable = user && user.identityProvider === null ? user.passwordHash : UNKNOWN_SECRET_HASH;
    const valid = await verifySecret(password, usable);
    if (!user || !valid) throw invalidCredentials();
    return this.passwordUser(user);
  }

  /** `{org, node, token}` of POST /v1/auth/token: nodes only. */
  async authenticateNode(org: string, id: string, token: string): Promise<NodePrincipal> {
    const node = await this.dataSource.manager.findOne(NodeEntity, {
      where: { org, id },
      select: ['org', 'id', 'tokenHash'],
    });
    const valid = await this.nodeTokens.matches(token, node?.tokenHash ?? UNKNOWN_SECRET_HASH);
    if (!node || !valid) throw invalidCredentials();
    return this.nodePrincipal(node);
  }

  /**
   * The user a right password names, if the org still allows passwords; the hub admin root/root
   * always keeps its own, as the way back in when a provider fails.
   */
  private async passwordUser(user: UserEntity): Promise<UserPrincipal> {
    if (!keepsPassword(user) && !(await this.providers.passwordLogin(this.dataSource.manager, user.org))) {
      throw passwordLoginDisabled(user.org);
    }
    return { kind: 'user', org: user.org, username: user.username, role: user.role };
  }

  private nodePrincipal(node: NodeEntity): NodePrincipal {
    return { kind: 'node', org: node.org, node: node.id };
  }
}
