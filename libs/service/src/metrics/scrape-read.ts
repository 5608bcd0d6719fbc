/**
 * A read that several metrics of one scrape share: Prometheus asks every gauge of a registry at
 * once, and those that show parts of the same query should make it once. The answer is reused
 * for `forMs` after it was asked for (a second by default), then read again.
 */
export function scrapeRead<T>(read: () => Promise<T>, forMs = 1_000): () => Promise<T> {
  let recent: { at: number; answer: Promise<T> } | undefined;
  return () => {
    if (!recent || Date.now() - recent.at > forMs) recent = { at: Date.now(), answer: read() };
    return recent.answer;
  };
}
