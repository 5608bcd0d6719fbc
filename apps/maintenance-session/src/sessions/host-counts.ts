/**
 * How far a session's hosts are, counted once here for every reader (the routes, the CLI and
 * the console show this count and never count phases themselves).
 */
import { type HostPhase } from '../workflow/workflow.types';

export interface HostCounts {
  hosts: number;
  /** Not started yet. */
  waiting: number;
  /** Asking for its slot, preparing, evacuating, in maintenance or returning to service. */
  under_way: number;
  done: number;
  /** Left out before it was taken out of service. */
  skipped: number;
  /** Out of service when the session ended, put back unfinished. */
  interrupted: number;
}

export function countHosts(phases: readonly HostPhase[]): HostCounts {
  const counts: HostCounts = {
    hosts: phases.length,
    waiting: 0,
    under_way: 0,
    done: 0,
    skipped: 0,
    interrupted: 0,
  };
  for (const phase of phases) {
    switch (phase) {
      case 'waiting':
      case 'done':
      case 'skipped':
      case 'interrupted':
        counts[phase] += 1;
        break;
      case 'slot':
      case 'preparing':
      case 'evacuating':
      case 'in-maintenance':
      case 'returning':
        counts.under_way += 1;
        break;
    }
  }
  return counts;
}

/** The count in words, as every reader shows it: `1/3 done, 1 interrupted, 1 skipped`. */
export function describeCounts(counts: HostCounts): string {
  const rest = (
    [
      ['under way', counts.under_way],
      ['interrupted', counts.interrupted],
      ['skipped', counts.skipped],
    ] as const
  )
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `, ${count} ${name}`);
  return `${counts.done}/${counts.hosts} done${rest.join('')}`;
}
