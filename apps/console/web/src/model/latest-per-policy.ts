/** A node's current status under each management policy: the newest of its history entries per policy. */
export interface StatusEntry {
  nmp: string;
  kind: string;
  at: string;
}

export function latestPerPolicy<T extends StatusEntry>(newestFirst: T[]): T[] {
  const latest = new Map<string, T>();
  for (const entry of newestFirst)
    if (entry.kind === 'status' && !latest.has(entry.nmp)) latest.set(entry.nmp, entry);
  return [...latest.values()].sort((a, b) => a.nmp.localeCompare(b.nmp));
}
