/**
 * The org a request to a hub service acts on, and the caller's right to act there, decided one
 * way in every controller: the org the request names (`?org=`, the body's `org`, or the org of
 * the record it addresses), else the caller's own; then the org rules of libs/auth (a caller
 * of another org is refused unless a hub admin; a node only where nodes may call). Roles and
 * scopes are the route's, judged by the guard. It never reads the request itself: the
 * controller passes what its validated DTO or its store says, so a malformed `org` is refused
 * by validation before access is judged.
 */
import { assertInOrg, type Principal } from '@careen/auth';

/** Whether nodes may act through the route. */
export interface OrgAccess {
  allowNodes?: boolean;
}

/** The org the request acts on (`named`, else the caller's own), once the caller may act there. */
export function actingOrg(actor: Principal, named: string | undefined, access: OrgAccess = {}): string {
  const org = named ?? actor.org;
  assertInOrg(actor, { ...access, org });
  return org;
}
