/**
 * Reads a FleetLock request as the protocol describes it: header `fleet-lock-protocol: true`
 * and a JSON body `{client_params: {id, group}}`. Fields the protocol may add later are
 * ignored. Here `id` names a node of the FleetLock org, so it must be a node id.
 */
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { FleetLockError } from './fleetlock.errors';

export const FLEETLOCK_HEADER = 'fleet-lock-protocol';
/** The protocol's group label. */
export const FLEETLOCK_GROUP_PATTERN = /^[a-zA-Z0-9.-]+$/;
/** The group Zincati uses unless configured: here, nodes outside any HA group. */
export const FLEETLOCK_DEFAULT_GROUP = 'default';

export interface FleetLockClient {
  id: string;
  group: string;
}

export function assertFleetLockHeader(value: string | string[] | undefined): void {
  if (value !== 'true') {
    throw new FleetLockError(
      'missing_fleetlock_header',
      `the "${FLEETLOCK_HEADER}: true" header is required on FleetLock requests`,
    );
  }
}

export function parseFleetLockBody(body: unknown): FleetLockClient {
  const invalid = (why: string) =>
    new FleetLockError('invalid_client_params', `invalid request body: ${why}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('it must be a JSON object {"client_params": {"id": ..., "group": ...}}');
  }
  const params = (body as Record<string, unknown>).client_params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw invalid('client_params must be an object with id and group');
  }
  const { id, group } = params as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof id !== 'string' || id.length === 0) problems.push('client_params.id must be a non-empty string');
  else if (!IDENTIFIER_PATTERN.test(id))
    problems.push(`client_params.id must name a node: ${IDENTIFIER_RULE}`);
  if (typeof group !== 'string' || group.length === 0)
    problems.push('client_params.group must be a non-empty string');
  else if (!FLEETLOCK_GROUP_PATTERN.test(group))
    problems.push(`client_params.group must match ${FLEETLOCK_GROUP_PATTERN.source}`);
  if (problems.length > 0) throw invalid(problems.join('; '));
  return { id: id as string, group: group as string };
}

/** The group a node must name: its HA group, or `default` when it is in none. */
export function expectedFleetLockGroup(haGroup: string | null): string {
  return haGroup ?? FLEETLOCK_DEFAULT_GROUP;
}
