/**
 * Bidirectional compatibility: two policies (a node's and a deployment or management policy,
 * say) are compatible when each one's constraints are satisfied by the other's properties.
 * Owns the per-side verdict that callers show per node; compile each party once to check
 * thousands of pairs quickly.
 */
import { indexProperties } from '../properties/property-index';
import { type Property, type PropertyIndex } from '../properties/property.types';
import { type CompiledConstraints, type ConstraintFailure, compileConstraints } from './compiled-constraints';

export interface PolicyParty {
  /** Used in failure messages, e.g. `node edge-1` or `deployment policy web`. */
  readonly name?: string;
  readonly properties?: readonly Property[];
  readonly constraints?: readonly string[];
}

export interface CompiledPolicy {
  readonly kind: 'compiled-policy';
  readonly name: string | undefined;
  readonly properties: PropertyIndex;
  readonly constraints: CompiledConstraints;
}

/** Which party's constraint failed: `a` means a constraint of the first party was not met by the second's properties. */
export type CompatibilitySide = 'a' | 'b';

export interface CompatibilityFailure extends ConstraintFailure {
  readonly side: CompatibilitySide;
}

export interface CompatibilityResult {
  readonly compatible: boolean;
  readonly failures: readonly CompatibilityFailure[];
}

export function compilePolicy(party: PolicyParty): CompiledPolicy {
  return {
    kind: 'compiled-policy',
    name: party.name,
    properties: indexProperties(party.properties ?? []),
    constraints: compileConstraints(party.constraints ?? []),
  };
}

function isCompiledPolicy(party: PolicyParty | CompiledPolicy): party is CompiledPolicy {
  return 'kind' in party && party.kind === 'compiled-policy';
}

function asCompiled(party: PolicyParty | CompiledPolicy): CompiledPolicy {
  return isCompiledPolicy(party) ? party : compilePolicy(party);
}

/** The fast check, for matching many pairs: no reasons, stops at the first failed constraint. */
export function isCompatible(a: CompiledPolicy, b: CompiledPolicy): boolean {
  return a.constraints.test(b.properties) && b.constraints.test(a.properties);
}

/** The verdict with every failed constraint of either side. */
export function compatible(
  a: PolicyParty | CompiledPolicy,
  b: PolicyParty | CompiledPolicy,
): CompatibilityResult {
  const first = asCompiled(a);
  const second = asCompiled(b);
  const firstName = first.name ?? 'the first policy';
  const secondName = second.name ?? 'the second policy';
  const describe =
    (side: CompatibilitySide, owner: string, other: string) =>
    (failure: ConstraintFailure): CompatibilityFailure => ({
      ...failure,
      side,
      message:
        failure.reason === 'invalid'
          ? `constraint ${failure.index} of ${owner} is invalid: ${failure.problem?.message ?? 'it does not parse'}`
          : `constraint ${failure.index} of ${owner} "${failure.constraint}" is not satisfied by ${other}${
              failure.missingProperties.length === 0
                ? ''
                : `, which has no ${failure.missingProperties.length === 1 ? 'property' : 'properties'} ${failure.missingProperties.join(', ')}`
            }`,
    });
  const failures = [
    ...first.constraints.failures(second.properties).map(describe('a', firstName, secondName)),
    ...second.constraints.failures(first.properties).map(describe('b', secondName, firstName)),
  ];
  return { compatible: failures.length === 0, failures };
}
