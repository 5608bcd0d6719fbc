/**
 * Who may grant which role. Hub admins live only in the `root` org and only a hub admin makes
 * another; an org admin manages the users and org admins of its own org.
 */
import { roleAllows, type Principal, type Role } from '@careen/auth';
import { roleNotAllowed } from './users.errors';

export const ROOT_ORG = 'root';
export const ROOT_USER = 'root';

/**
 * The hub admin root/root keeps its password when its org's passwords are switched off: the
 * way back in when an identity provider fails.
 */
export function keepsPassword(user: { org: string; username: string }): boolean {
  return user.org === ROOT_ORG && user.username === ROOT_USER;
}

export function assertMayGrantRole(actor: Principal, org: string, role: Role): void {
  if (role === 'hubAdmin') {
    if (org !== ROOT_ORG) throw roleNotAllowed(`hubAdmin users exist only in the "${ROOT_ORG}" org`);
    if (actor.kind !== 'user' || actor.role !== 'hubAdmin')
      throw roleNotAllowed('only a hubAdmin may create a hubAdmin');
  }
}

/** A user may read their own record; admins read every user of their org. */
export function mayReadUser(actor: Principal, org: string, username: string): boolean {
  if (actor.kind !== 'user') return false;
  return roleAllows(actor.role, 'orgAdmin') || (actor.org === org && actor.username === username);
}
