/** The facts behind a node's built-in properties (careen.arch, .cpus, .memory, .os, .agentVersion). */
import { type BuiltinNodeFacts } from '@careen/policy';
import { arch, cpus, platform, totalmem } from 'node:os';

const ARCHES: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

export function hostFacts(agentVersion: string): BuiltinNodeFacts {
  return {
    arch: ARCHES[arch()] ?? arch(),
    cpus: cpus().length,
    memoryMb: Math.floor(totalmem() / (1024 * 1024)),
    os: platform(),
    agentVersion,
  };
}
