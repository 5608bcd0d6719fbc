/** Who is signed in: the access token (kept in memory only) and what the exchange says of its holder. */
export interface Identity {
  accessToken: string;
  /** When the token stops working, in ms since the epoch. */
  expiresAt: number;
  org: string;
  username: string;
  role: 'user' | 'orgAdmin' | 'hubAdmin';
}

export const isAdmin = (identity: Identity) => identity.role === 'orgAdmin' || identity.role === 'hubAdmin';
