/**
 * A server-sent event stream read with fetch (EventSource cannot send the bearer token),
 * followed until stopped: after a break it reconnects with `Last-Event-ID`, so that no event
 * in between is missed, and waits the `retry` the server asked for. Each connection asks for
 * the sign-in's current token: the one it opened with may have been renewed since.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export function followEventStream(
  url: string,
  authorization: () => string,
  onEvent: (event: EventSourceMessage) => void,
  signal: AbortSignal,
): void {
  let lastEventId: string | undefined;
  let retryMs = 2000;
  const run = async () => {
    while (!signal.aborted) {
      try {
        const answer = await fetch(url, {
          headers: {
            authorization: authorization(),
            accept: 'text/event-stream',
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal,
        });
        if (answer.status === 401 || answer.status === 403 || answer.status === 404) return;
        if (!answer.ok || !answer.body) throw new Error(`answered ${answer.status}`);
        const parser = createParser({
          onEvent: (event) => {
            if (event.id) lastEventId = event.id;
            onEvent(event);
          },
          onRetry: (ms) => (retryMs = ms),
        });
        const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        if (signal.aborted) return;
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void run();
}
