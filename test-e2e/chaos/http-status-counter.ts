/**
 * Counts the HTTP answers each service gave, by status, from the bytes its proxy passed back:
 * every client (agents, services calling each other, the run itself) goes through one, so a 500
 * that any of them saw is counted here. A status line split across two chunks is still read:
 * each connection keeps the end of its previous chunk.
 */
const STATUS_LINE = /HTTP\/1\.[01] (\d{3}) /g;
/** Longer than a status line's start, so one split anywhere is seen whole once. */
const CARRIED = 16;

export class HttpStatusCounter {
  private readonly counts = new Map<string, Map<number, number>>();

  /** The function that reads one connection's chunks to `service`'s proxy. */
  connection(service: string): (chunk: Buffer) => void {
    let carried = '';
    return (chunk) => {
      // latin1 keeps one character per byte, so binary bodies cannot shift what follows.
      const text = carried + chunk.toString('latin1');
      for (const match of text.matchAll(STATUS_LINE)) {
        // A match wholly inside the carried part was counted with the chunk before.
        if (match.index + match[0].length <= carried.length) continue;
        this.add(service, Number(match[1]));
      }
      carried = text.slice(-CARRIED);
    };
  }

  /** Answers by status, for each service. */
  byService(): Record<string, Record<number, number>> {
    return Object.fromEntries(
      [...this.counts].map(([service, counts]) => [service, Object.fromEntries(counts)]),
    );
  }

  private add(service: string, status: number): void {
    const counts = this.counts.get(service) ?? new Map<number, number>();
    counts.set(status, (counts.get(status) ?? 0) + 1);
    this.counts.set(service, counts);
  }
}
