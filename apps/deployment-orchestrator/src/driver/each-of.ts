/**
 * Drives each item in turn; answers whether any moved. An item that fails does not stop the
 * others: the failures are thrown together at the end, for the loop to report.
 */
export async function eachOf<T>(
  items: Promise<readonly T[]>,
  drive: (item: T) => Promise<boolean>,
): Promise<boolean> {
  let moved = false;
  const failures: unknown[] = [];
  for (const item of await items) {
    try {
      moved = (await drive(item)) || moved;
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, failures.map(String).join('; '));
  return moved;
}
