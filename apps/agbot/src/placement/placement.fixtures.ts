/** Builders for placement specs and the benchmark: nodes, policies and services with defaults. */
import {
  type PlacementNode,
  type PlacementPolicy,
  type PlacementService,
  type PolicyProperty,
} from './placement.types';

export interface NodeOptions {
  org?: string;
  arch?: string;
  properties?: PolicyProperty[];
  constraints?: string[];
  rack?: string | null;
  haGroup?: string | null;
  schedulable?: boolean;
  maintenance?: Record<string, unknown> | null;
}

export function aNode(id: string, options: NodeOptions = {}): PlacementNode {
  return {
    org: options.org ?? 'acme',
    id,
    policy: {
      properties: [{ name: 'careen.arch', value: options.arch ?? 'amd64' }, ...(options.properties ?? [])],
      constraints: options.constraints ?? [],
    },
    rack: options.rack ?? null,
    haGroup: options.haGroup ?? null,
    schedulable: options.schedulable ?? true,
    maintenance: options.maintenance ?? null,
  };
}

export interface PolicyOptions {
  org?: string;
  url?: string;
  versionRange?: string;
  properties?: PolicyProperty[];
  constraints?: string[];
  replicas?: number;
}

export function aPolicy(name: string, options: PolicyOptions = {}): PlacementPolicy {
  return {
    org: options.org ?? 'acme',
    name,
    service: {
      org: options.org ?? 'acme',
      url: options.url ?? 'acme.web',
      versionRange: options.versionRange ?? '*',
    },
    properties: options.properties ?? [],
    constraints: options.constraints ?? [],
    placement:
      options.replicas === undefined ? { mode: 'all' } : { mode: 'replicas', replicas: options.replicas },
  };
}

export function aService(
  version: string,
  options: {
    org?: string;
    url?: string;
    arch?: string;
    constraints?: string[];
    properties?: PolicyProperty[];
  } = {},
): PlacementService {
  return {
    org: options.org ?? 'acme',
    url: options.url ?? 'acme.web',
    version,
    arch: options.arch ?? 'amd64',
    ...(options.constraints ? { constraints: options.constraints } : {}),
    ...(options.properties ? { properties: options.properties } : {}),
  };
}
