/** Horizontal bars of counts, each labelled with its value; optionally each bar is a button. */
export interface Bar {
  key: string;
  label: string;
  count: number;
  tone?: string;
}

export function BarChart({
  title,
  bars,
  onPick,
  picked,
}: {
  title: string;
  bars: Bar[];
  onPick?: (key: string) => void;
  picked?: string;
}) {
  const most = Math.max(1, ...bars.map((bar) => bar.count));
  return (
    <figure className="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <ul>
        {bars.map((bar) => {
          const content = (
            <>
              <span className="chart-label">{bar.label}</span>
              <span className="chart-track">
                <span
                  className={`chart-bar tone-${bar.tone ?? 'plain'}`}
                  style={{ width: `${(bar.count / most) * 100}%` }}
                />
              </span>
              <span className="chart-count">{bar.count}</span>
            </>
          );
          return (
            <li key={bar.key}>
              {onPick ? (
                <button
                  type="button"
                  className={`chart-row${picked === bar.key ? ' picked' : ''}`}
                  aria-pressed={picked === bar.key}
                  onClick={() => onPick(bar.key)}
                >
                  {content}
                </button>
              ) : (
                <div className="chart-row">{content}</div>
              )}
            </li>
          );
        })}
      </ul>
    </figure>
  );
}
