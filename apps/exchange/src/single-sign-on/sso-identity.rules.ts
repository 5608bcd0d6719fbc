/**
 * Who a person signed in by an OpenID provider is in Careen, decided from the identity token's
 * claims and the org's provider settings alone: their user name (from the username claim) and
 * their role, the most powerful one any of their groups is mapped to. Someone in no mapped
 * group has no role, and no access.
 */
import { ROLES, type Role } from '@careen/auth';
import { badUsername, noRole } from './sso.errors';

export interface RoleMapping {
  group: string;
  role: Role;
}

export interface ClaimSettings {
  org: string;
  groupsClaim: string;
  usernameClaim: string;
  roleMappings: readonly RoleMapping[];
}

export interface SsoIdentity {
  username: string;
  role: Role;
  groups: string[];
}

const USERNAME = /^[^/:]{1,64}$/;

/** The groups a claim holds: a list of names, or one name; anything else is none. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  return Array.isArray(claim) ? claim.filter((group): group is string => typeof group === 'string') : [];
}

/** The most powerful role the groups are mapped to, if any is. */
export function roleOf(groups: readonly string[], mappings: readonly RoleMapping[]): Role | undefined {
  const roles = mappings.filter((mapping) => groups.includes(mapping.group)).map((mapping) => mapping.role);
  return ROLES.find((role) => roles.includes(role));
}

export function identityFromClaims(settings: ClaimSettings, claims: Record<string, unknown>): SsoIdentity {
  const name = claims[settings.usernameClaim];
  if (typeof name !== 'string' || !USERNAME.test(name)) throw badUsername(settings.usernameClaim, name);
  const groups = groupsOf(claims[settings.groupsClaim]);
  const role = roleOf(groups, settings.roleMappings);
  if (!role) throw noRole(settings.org, name, settings.groupsClaim, groups);
  return { username: name, role, groups };
}
