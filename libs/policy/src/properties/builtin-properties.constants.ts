/**
 * The node properties every agent reports about itself, under Careen's own prefix, with the
 * type each is reported as. Policies refer to these names; renaming one breaks stored policies.
 */
import { type Property, type PropertyType } from './property.types';

export const CAREEN_ARCH = 'careen.arch';
export const CAREEN_CPUS = 'careen.cpus';
/** Memory in megabytes, as Open Horizon's `openhorizon.memory`. */
export const CAREEN_MEMORY = 'careen.memory';
export const CAREEN_OS = 'careen.os';
export const CAREEN_AGENT_VERSION = 'careen.agentVersion';

export const BUILTIN_PROPERTY_TYPES: Readonly<Record<string, PropertyType>> = {
  [CAREEN_ARCH]: 'string',
  [CAREEN_CPUS]: 'int',
  [CAREEN_MEMORY]: 'int',
  [CAREEN_OS]: 'string',
  [CAREEN_AGENT_VERSION]: 'version',
};

export interface BuiltinNodeFacts {
  readonly arch: string;
  readonly cpus: number;
  readonly memoryMb: number;
  readonly os: string;
  readonly agentVersion: string;
}

/** The built-in properties of a node, typed explicitly so a version is never read as a string. */
export function builtinNodeProperties(facts: BuiltinNodeFacts): Property[] {
  return [
    { name: CAREEN_ARCH, type: 'string', value: facts.arch },
    { name: CAREEN_CPUS, type: 'int', value: facts.cpus },
    { name: CAREEN_MEMORY, type: 'int', value: facts.memoryMb },
    { name: CAREEN_OS, type: 'string', value: facts.os },
    { name: CAREEN_AGENT_VERSION, type: 'version', value: facts.agentVersion },
  ];
}
