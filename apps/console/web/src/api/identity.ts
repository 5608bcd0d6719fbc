import type { TokenSession } from './token-session';

/** Who is signed in: their tokens (kept in memory only, renewed as they run out) and what the exchange says of them. */
export interface Identity {
  session: TokenSession;
  org: string;
  username: string;
  role: 'viewer' | 'operator' | 'orgAdmin' | 'hubAdmin';
}

export const isAdmin = (identity: Identity) => identity.role === 'orgAdmin' || identity.role === 'hubAdmin';
/** Whether they may run the org (start, pause, resume, reset, abort): anyone but a viewer. */
export const mayOperate = (identity: Identity) => identity.role !== 'viewer';
