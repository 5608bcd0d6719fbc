/**
 * Data that stays current while a view shows it: loaded once, then again a moment after each
 * change on the org's feed to one of the view's resources (several changes close together
 * make one load), and every `refreshSeconds` for state the feed does not carry (a rollout's
 * phase, a maintenance session's step). A load that fails keeps the last data and reports the
 * error. `load` is the view's memoized loader: a new one (another org, another node) starts over.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useConsole } from './console-context';

export interface Live<T> {
  data: T | undefined;
  error: Error | undefined;
  /** Loads again now (after an action). */
  reload: () => Promise<void>;
}

export interface LiveOptions {
  /** The change-feed resources whose changes call for a load (`node`, `managementStatus`, …); every change by default. */
  resources?: string[];
  refreshSeconds?: number;
}

const SETTLE_MS = 250;

interface Loaded<T> {
  load?: () => Promise<T>;
  data?: T;
  error?: Error;
}

export function useLive<T>(load: () => Promise<T>, options: LiveOptions = {}): Live<T> {
  const { feed } = useConsole();
  const [loaded, setLoaded] = useState<Loaded<T>>({});
  const generation = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const data = await load();
      if (mine === generation.current) setLoaded({ load, data });
    } catch (failure) {
      if (mine !== generation.current || (failure as Error).name === 'AbortError') return;
      setLoaded((before) => ({ ...(before.load === load ? before : {}), load, error: failure as Error }));
    }
  }, [load]);

  const resources = options.resources?.join(',');
  const refreshMs = (options.refreshSeconds ?? 15) * 1000;
  useEffect(() => {
    void reload();
    const wanted = resources?.split(',');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = feed.onChanges((changes) => {
      // An empty batch means the feed was lost for a while: anything may have changed.
      const relevant =
        changes.length === 0 || !wanted || changes.some((change) => wanted.includes(change.resource));
      if (relevant && timer === undefined)
        timer = setTimeout(() => {
          timer = undefined;
          void reload();
        }, SETTLE_MS);
    });
    const interval = setInterval(() => void reload(), refreshMs);
    return () => {
      generation.current += 1;
      unsubscribe();
      clearInterval(interval);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [feed, reload, resources, refreshMs]);

  const current = loaded.load === load;
  return { data: current ? loaded.data : undefined, error: current ? loaded.error : undefined, reload };
}
