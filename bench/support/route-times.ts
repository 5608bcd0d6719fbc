/**
 * How long a service itself took per request, by route, from its own request histogram
 * (`careen_http_request_duration_seconds` on `/metrics`): read before and after a phase, the
 * difference says what the service spent on each route then, apart from the time requests
 * spent reaching it or their answers spent reaching the caller.
 */

interface RouteTime {
  seconds: number;
  requests: number;
  /** Requests answered within each bucket's bound (seconds), as the histogram counts them. */
  buckets: Map<number, number>;
}

/** Per `METHOD route`, summed over statuses and replicas. */
export type RouteTimes = Map<string, RouteTime>;

const SAMPLE = /^careen_http_request_duration_seconds_(sum|count|bucket)\{([^}]*)\} (\S+)$/;

export async function readRouteTimes(urls: string[]): Promise<RouteTimes> {
  const times: RouteTimes = new Map();
  for (const url of urls) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const line of text.split('\n')) {
      const sample = SAMPLE.exec(line);
      if (!sample) continue;
      const [, kind, labels, raw] = sample;
      const value = Number(raw);
      const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels!)?.[1] ?? '';
      const key = `${label('method')} ${label('route')}`;
      const entry = times.get(key) ?? { seconds: 0, requests: 0, buckets: new Map() };
      if (kind === 'sum') entry.seconds += value;
      else if (kind === 'count') entry.requests += value;
      else {
        const le = label('le');
        const bound = le === '+Inf' ? Infinity : Number(le);
        entry.buckets.set(bound, (entry.buckets.get(bound) ?? 0) + value);
      }
      times.set(key, entry);
    }
  }
  return times;
}

/**
 * The time within which a share `q` of the requests were answered, interpolated within its
 * bucket as Prometheus's histogram_quantile does; the largest finite bound when it lies beyond.
 */
function quantile(q: number, buckets: [number, number][], requests: number): number {
  const rank = q * requests;
  let lower = 0;
  let below = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      if (!Number.isFinite(bound)) return lower;
      return lower + ((bound - lower) * (rank - below)) / Math.max(1, count - below);
    }
    lower = bound;
    below = count;
  }
  return lower;
}

/** Each route's requests, mean and p50/p99 (ms) between two readings, busiest first. */
export function routeTimesBetween(
  before: RouteTimes,
  after: RouteTimes,
): { route: string; requests: number; meanMs: number; p50Ms: number; p99Ms: number }[] {
  return [...after]
    .map(([route, now]) => {
      const then = before.get(route);
      const requests = now.requests - (then?.requests ?? 0);
      const buckets = [...now.buckets]
        .map(([bound, count]): [number, number] => [bound, count - (then?.buckets.get(bound) ?? 0)])
        .sort((a, b) => a[0] - b[0]);
      const ms = (seconds: number) => Number((seconds * 1000).toFixed(1));
      return {
        route,
        requests,
        meanMs: requests > 0 ? ms((now.seconds - (then?.seconds ?? 0)) / requests) : 0,
        p50Ms: ms(quantile(0.5, buckets, requests)),
        p99Ms: ms(quantile(0.99, buckets, requests)),
      };
    })
    .filter((row) => row.requests > 0)
    .sort((a, b) => b.requests - a.requests);
}
