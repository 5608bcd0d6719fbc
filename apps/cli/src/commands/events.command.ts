/**
 * `careen events --project P`: follows a project's maintenance events as the notifier streams
 * them (server-sent events), one line each (`-o json`: one CloudEvent per line). A dropped
 * stream is opened again after the last event shown, so none is missed or shown twice; Ctrl-C
 * stops with exit 130, `--limit` after that many events.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { setTimeout as pause } from 'node:timers/promises';
import { CliError } from '../cli-errors';
import { type CliServices } from './command-context';
import { NOTIFIER_URL_OPTION, notifierContext } from './subscription.commands';

interface StreamedEvent {
  id: string;
  time: string;
  data: { state?: string; session_id?: string; host?: string; project_id?: string };
}

interface EventsOptions {
  project: string;
  org?: string;
  after?: string;
  limit?: number;
}

const RECONNECT_MS = 2_000;

function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a whole number above 0');
  return parsed;
}

/** One event as a line: when, what, which session and host, and its id to resume after. */
export function eventLine(id: string, event: StreamedEvent): string {
  const { state, session_id: session, host } = event.data;
  return [
    event.time,
    (state ?? '?').padEnd(26),
    `session ${session ?? '?'}`,
    ...(host ? [`host ${host}`] : []),
    `(id ${id})`,
  ].join('  ');
}

export function registerEventsCommand(program: Command, services: CliServices): void {
  program
    .command('events')
    .description("follow a project's maintenance events as they happen (the notifier's stream)")
    .requiredOption('--project <project>', 'the project')
    .option('--org <org>', 'org (default: your own)')
    .option('--after <id>', 'start after this event id (as shown), else with the next event')
    .option('--limit <n>', 'stop after this many events', count)
    .option(...NOTIFIER_URL_OPTION)
    .action(async (options: EventsOptions, command: Command) => {
      const { context, ask } = await notifierContext(command, services);
      const stop = new AbortController();
      const stopListening = context.io.onInterrupt?.(() => stop.abort());
      let last = options.after;
      let shown = 0;
      let opened = false;
      const show = (message: EventSourceMessage) => {
        if (!message.id || shown === options.limit) return;
        const event = JSON.parse(message.data) as StreamedEvent;
        last = message.id;
        shown++;
        context.io.stdout.write(
          context.printer.format === 'json' ? `${message.data}\n` : `${eventLine(message.id, event)}\n`,
        );
        if (shown === options.limit) stop.abort();
      };
      try {
        while (!stop.signal.aborted) {
          // Once the answer's head is in, the stream has no timeout: it stays open as long as it lasts.
          const body = await ask((api) =>
            api.GET('/v1/stream', {
              params: {
                query: { project_id: options.project, org: options.org || undefined },
                header: { 'Last-Event-ID': last || undefined },
              },
              headers: { accept: 'text/event-stream' },
              parseAs: 'stream',
              signal: stop.signal,
            }),
          ).catch((error: unknown) => {
            if (stop.signal.aborted) return undefined;
            // The first answer decides; later, an outage is waited out.
            if (!opened) throw error;
            context.io.stderr.write(`${(error as Error).message}\n`);
            return null;
          });
          if (body === undefined) break;
          if (body) {
            opened = true;
            const parser = createParser({ onEvent: show });
            const decoder = new TextDecoder();
            try {
              for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
            } catch {
              // Dropped (or stopped): opened again below, after the last event shown.
            }
            if (stop.signal.aborted) break;
          }
          context.io.stderr.write(`the stream ended; reopening after event ${last ?? '(none yet)'}\n`);
          await pause(RECONNECT_MS, undefined, { signal: stop.signal }).catch(() => undefined);
        }
      } finally {
        stopListening?.();
      }
      if (shown !== options.limit) throw new CliError('interrupted', [], 130);
    });
}
