/**
 * Who may take or give back a FleetLock slot for a node: the node itself (or an admin of the
 * FleetLock org) when credentials are sent; without credentials, only a caller on a trusted
 * network, since FleetLock clients usually send none. The routes are public to the guard, so
 * the check is made here.
 */
import {
  assertAccess,
  BASIC_AUTHENTICATOR,
  isAuthError,
  parseAuthorizationHeader,
  TOKEN_VERIFIER,
  type BasicAuthenticator,
  type Principal,
  type TokenVerifier,
} from '@careen/auth';
import { NetworkList, SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type AgbotConfig } from '../agbot.config';
import { FleetLockError } from './fleetlock.errors';

export interface FleetLockCallerRequest {
  authorization: string | string[] | undefined;
  remoteAddress: string | undefined;
}

@Injectable()
export class FleetLockCaller {
  private readonly trusted: NetworkList;

  constructor(
    @Inject(SERVICE_CONFIG) config: AgbotConfig,
    @Inject(TOKEN_VERIFIER) private readonly verifier: TokenVerifier,
    @Inject(BASIC_AUTHENTICATOR) private readonly basic: BasicAuthenticator,
  ) {
    this.trusted = NetworkList.parse(config.CAREEN_FLEETLOCK_TRUSTED_NETWORKS);
  }

  async assertMayActFor(request: FleetLockCallerRequest, org: string, node: string): Promise<void> {
    if (request.authorization === undefined) {
      if (this.trusted.includes(request.remoteAddress)) return;
      throw new FleetLockError(
        'unauthenticated',
        "send the node's credentials, or call from a trusted network (CAREEN_FLEETLOCK_TRUSTED_NETWORKS)",
      );
    }
    let principal: Principal;
    try {
      principal = await this.authenticate(request.authorization);
    } catch (error) {
      if (!isAuthError(error)) throw error;
      throw new FleetLockError(
        error.kind === 'unavailable' ? 'unavailable' : 'unauthenticated',
        error.message,
      );
    }
    if (principal.kind === 'node') {
      if (principal.org === org && principal.node === node) return;
      throw new FleetLockError('forbidden', `node credentials may take or release only that node's own slot`);
    }
    try {
      assertAccess(principal, { org, role: 'operator' });
    } catch (error) {
      if (!isAuthError(error)) throw error;
      throw new FleetLockError('forbidden', error.message);
    }
  }

  private async authenticate(header: string | string[]): Promise<Principal> {
    if (Array.isArray(header)) throw new FleetLockError('unauthenticated', 'send one authorization header');
    const credentials = parseAuthorizationHeader(header);
    if (!credentials) throw new FleetLockError('unauthenticated', 'missing credentials');
    switch (credentials.scheme) {
      case 'bearer':
        return this.verifier.verify(credentials.token);
      case 'basic':
        return this.basic.authenticate(credentials.org, credentials.id, credentials.secret);
    }
  }
}
