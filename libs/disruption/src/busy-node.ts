/**
 * A node declared busy by its agent, a workload through its agent, or an admin: a backup, a
 * resize, a restore under way (as Trove's guest agent asks not to be upgraded while it does other
 * work, and as kured waits for blocking pods). No disruption starts on it until it is declared
 * free or the declaration lapses; work under way is not stopped.
 */
export interface BusyDeclaration {
  reason: string;
  until: Date;
  declaredBy: string;
}

export interface BusyRefusal {
  reason: 'busy';
  control: string;
  until: Date;
  message: string;
}

export function busyRefusal(busy: BusyDeclaration | undefined, now: Date): BusyRefusal | undefined {
  if (!busy || busy.until <= now) return undefined;
  return {
    reason: 'busy',
    control: busy.declaredBy,
    until: busy.until,
    message: `the node is busy until ${busy.until.toISOString()}: ${busy.reason} (declared by ${busy.declaredBy})`,
  };
}
