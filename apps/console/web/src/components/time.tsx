import { useNow } from '../live/use-now';

/** A moment shown as how long ago it was, with the exact time on hover. */
export function Ago({ at }: { at: string | null | undefined }) {
  const now = useNow();
  if (!at) return <span className="muted">never</span>;
  const then = Date.parse(at);
  if (Number.isNaN(then)) return <span>{at}</span>;
  return (
    <time dateTime={at} title={new Date(then).toLocaleString()}>
      {agoText(now - then)}
    </time>
  );
}

function agoText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** A moment as a time of day when it is today, else with its date. */
export function When({ at }: { at: string | null | undefined }) {
  const now = useNow();
  if (!at) return <span className="muted">–</span>;
  const then = new Date(at);
  const today = then.toDateString() === new Date(now).toDateString();
  return (
    <time dateTime={at} title={then.toLocaleString()}>
      {today ? then.toLocaleTimeString() : then.toLocaleString()}
    </time>
  );
}
