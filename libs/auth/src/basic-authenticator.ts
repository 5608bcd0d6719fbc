/**
 * The port through which a service checks Basic credentials (org/id:secret). The exchange
 * implements it against its own users and nodes; every other service asks the exchange.
 */
import { type Principal } from './principal';

export interface BasicAuthenticator {
  /**
   * The principal the credentials belong to. Throws AuthenticationError when they are wrong and
   * AuthServiceUnavailableError when they cannot be checked right now.
   */
  authenticate(org: string, id: string, secret: string): Promise<Principal>;
}
