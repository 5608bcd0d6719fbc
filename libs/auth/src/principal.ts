/**
 * Who is calling: a user of an org (with one role) or a node of an org. Every authorization
 * decision in Careen starts from one of these; nothing here knows how it was authenticated.
 */
export const ROLES = ['hubAdmin', 'orgAdmin', 'user'] as const;
export type Role = (typeof ROLES)[number];

export interface UserPrincipal {
  kind: 'user';
  org: string;
  username: string;
  role: Role;
}

export interface NodePrincipal {
  kind: 'node';
  org: string;
  node: string;
}

export type Principal = UserPrincipal | NodePrincipal;

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** "org/username" or "org/node": the JWT subject and the form used in logs and audit rows. */
export function principalId(principal: Principal): string {
  switch (principal.kind) {
    case 'user':
      return `${principal.org}/${principal.username}`;
    case 'node':
      return `${principal.org}/${principal.node}`;
  }
}

export function isHubAdmin(principal: Principal): boolean {
  return principal.kind === 'user' && principal.role === 'hubAdmin';
}
