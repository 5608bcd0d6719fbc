import type { TokenSession } from './token-session';

/** Who is signed in: their tokens (kept in memory only, renewed as they run out) and what the exchange says of them. */
export interface Identity {
  session: TokenSession;
  org: string;
  username: string;
  role: 'user' | 'orgAdmin' | 'hubAdmin';
}

export const isAdmin = (identity: Identity) => identity.role === 'orgAdmin' || identity.role === 'hubAdmin';
