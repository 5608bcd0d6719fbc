import { type CredentialKind } from '../authenticate-header';
import { type Principal } from '../principal';

/** The parts of an HTTP request the auth guard reads, and the principal it leaves behind. */
export interface AuthenticatedRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string | undefined>;
  principal?: Principal;
  /** How the principal proved who it is. */
  credential?: CredentialKind;
}
