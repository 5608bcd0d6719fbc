/**
 * What a service account's key may do: a resource of an org and how (`rollouts:write`,
 * `nodes:read`). Reading a resource needs `<resource>:read` or `:write`; changing it `:write`.
 * Users, service accounts, orgs and agent packages are no resource of a key: keys never manage
 * identities, and a hub's resources are for hub admins.
 */
export const RESOURCES = [
  'nodes',
  'hagroups',
  'services',
  'policies',
  'disruption',
  'changes',
  'upgrades',
  'rollouts',
  'maintenance',
  'subscriptions',
] as const;
export type Resource = (typeof RESOURCES)[number];

export const SCOPE_ACCESS = ['read', 'write'] as const;
export type ScopeAccess = (typeof SCOPE_ACCESS)[number];
export type Scope = `${Resource}:${ScopeAccess}`;

/** Every scope there is, for validation and the documents. */
export const SCOPES: readonly Scope[] = RESOURCES.flatMap((resource) =>
  SCOPE_ACCESS.map((access): Scope => `${resource}:${access}`),
);

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Whether `scopes` allow `access` to `resource`: write allows reading too. */
export function scopesAllow(scopes: readonly Scope[], resource: Resource, access: ScopeAccess): boolean {
  return scopes.includes(`${resource}:write`) || (access === 'read' && scopes.includes(`${resource}:read`));
}

/** What a route open to every key declares instead of a resource. */
export const ANY_KEY = '*';
export type RouteResource = Resource | typeof ANY_KEY;
