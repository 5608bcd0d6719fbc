/**
 * A group's success criteria judged on its full node set after a phase, as Shipyard judges
 * them: every criterion given must hold; none given, or a group without nodes, the group
 * succeeds whatever happened (a plan warns of a group that chooses no node).
 */
import { type SuccessCriteria } from '@careen/contracts';

export interface PhaseCounts {
  total: number;
  successful: number;
  failed: number;
}

/** The criteria not met, each said in words; empty when the group passes. */
export function unmetCriteria(criteria: SuccessCriteria | undefined, counts: PhaseCounts): string[] {
  if (!criteria || counts.total === 0) return [];
  const unmet: string[] = [];
  const { percent_successful_nodes: percent, minimum_successful_nodes: minimum } = criteria;
  const { maximum_failed_nodes: maximum } = criteria;
  const share = (counts.successful / counts.total) * 100;
  if (percent !== undefined && share < percent)
    unmet.push(`${round(share)} % of its nodes succeeded, ${percent} % needed`);
  if (minimum !== undefined && counts.successful < minimum)
    unmet.push(`${counts.successful} node(s) succeeded, ${minimum} needed`);
  if (maximum !== undefined && counts.failed > maximum)
    unmet.push(`${counts.failed} node(s) failed, at most ${maximum} allowed`);
  return unmet;
}

/** Why the criteria cannot pass on a group of `size` nodes whatever happens, if they cannot. */
export function impossibleCriteria(criteria: SuccessCriteria | undefined, size: number): string | undefined {
  const minimum = criteria?.minimum_successful_nodes;
  if (minimum !== undefined && size > 0 && minimum > size)
    return `minimum_successful_nodes ${minimum} is more than the group's ${size} node(s)`;
  return undefined;
}

const round = (value: number) => Math.round(value * 10) / 10;
