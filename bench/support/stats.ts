/** Figures a benchmark prints: rates, percentiles and the ratio to its baseline. */
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)] ?? NaN;
}

export function summarize(samplesMs: number[]): { min: number; p50: number; p99: number; max: number } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    min: sorted[0] ?? NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

export async function timed(run: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  process.stdout.write(`\n${title}\n`);
  console.table(
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [key, typeof value === 'number' ? round(value) : value]),
      ),
    ),
  );
}

export function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
}
