/** How many nodes are in each status, the statuses with none left out. */
import { Badge } from './badge';

export function StatusCounts({ counts }: { counts: Record<string, number> }) {
  return (
    <>
      {Object.entries(counts)
        .filter(([, count]) => count > 0)
        .map(([status, count]) => (
          <span key={status} className="count">
            <Badge state={status} /> {count}
          </span>
        ))}
    </>
  );
}
