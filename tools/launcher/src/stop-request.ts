/**
 * Turns Ctrl-C, SIGTERM, SIGHUP or the loss of the parent process into one abort signal.
 * Repeats are ignored: the first request already stops everything in order.
 */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface StopRequest {
  signal: AbortSignal;
  /** Settles with the reason when a stop is requested. */
  requested: Promise<string>;
}

export function listenForStop(print: (line: string) => void): StopRequest {
  const controller = new AbortController();
  const requested = new Promise<string>((resolve) => {
    const request = (reason: string) => {
      if (controller.signal.aborted) return;
      print(`\nReceived ${reason}; stopping…`);
      controller.abort(reason);
      resolve(reason);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, () => request(signal));
    // Started by the start.js bootstrap over IPC: if that process is gone, nobody can stop us.
    if (process.connected) process.once('disconnect', () => request('the loss of the parent process'));
  });
  return { signal: controller.signal, requested };
}
