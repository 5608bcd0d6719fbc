/**
 * Who may take or give back a FleetLock slot for a node: the node itself, an operator or admin
 * of the FleetLock org, or a key of it with `maintenance:write`, when credentials are sent; without credentials, only a caller on a trusted
 * network, since FleetLock clients usually send none. The routes are public to the guard, so
 * the check is made here.
 */
import {
  assertAccess,
  authenticateHeader,
  BASIC_AUTHENTICATOR,
  isAuthError,
  KEY_AUTHENTICATOR,
  TOKEN_VERIFIER,
  type BasicAuthenticator,
  type CredentialCheckers,
  type KeyAuthenticator,
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
  private readonly checkers: CredentialCheckers;

  constructor(
    @Inject(SERVICE_CONFIG) config: AgbotConfig,
    @Inject(TOKEN_VERIFIER) verifier: TokenVerifier,
    @Inject(BASIC_AUTHENTICATOR) basic: BasicAuthenticator,
    @Inject(KEY_AUTHENTICATOR) keys: KeyAuthenticator,
  ) {
    this.trusted = NetworkList.parse(config.CAREEN_FLEETLOCK_TRUSTED_NETWORKS);
    this.checkers = { verifier, basic, keys };
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
      ({ principal } = await authenticateHeader(request.authorization, this.checkers));
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
      assertAccess(principal, { org, role: 'operator', resource: 'maintenance' });
    } catch (error) {
      if (!isAuthError(error)) throw error;
      throw new FleetLockError('forbidden', error.message);
    }
  }
}
