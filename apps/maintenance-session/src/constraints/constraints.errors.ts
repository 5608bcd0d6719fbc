/** The constraints API's refusals, each with a stable code. */
import { DomainError } from '@careen/contracts';

export const groupNotFound = (org: string, id: string) =>
  new DomainError(
    'not-found',
    'maintenance.instance-group-not-found',
    `no instance group "${id}" in org ${org}`,
  );

export const instanceNotFound = (org: string, id: string) =>
  new DomainError(
    'not-found',
    'maintenance.instance-not-found',
    `no instance constraints "${id}" in org ${org}`,
  );

export const pathMismatch = (field: string, body: string, path: string) =>
  new DomainError(
    'invalid',
    'maintenance.constraint-id-mismatch',
    `${field} "${body}" in the body is not the path's "${path}"`,
  );

/** A group or instance is its project's: another project's VNF manager cannot take it over. */
export const ofAnotherProject = (what: string, id: string, project: string) =>
  new DomainError(
    'conflict',
    'maintenance.constraint-of-another-project',
    `${what} "${id}" is declared by project ${project}`,
  );

export const unknownGroup = (org: string, id: string) =>
  new DomainError(
    'invalid',
    'maintenance.unknown-instance-group',
    `group_id: no instance group "${id}" in org ${org}; declare it first`,
  );

export const groupInUse = (id: string, instances: number) =>
  new DomainError(
    'conflict',
    'maintenance.instance-group-in-use',
    `instance group "${id}" still has ${instances} instance(s); remove them first`,
  );
