/**
 * Owns the bridge from Nest's LoggerService calls to pino lines: Nest's trailing context string
 * becomes `context`, errors and stacks become `err`. It never writes anything pino would not.
 */
import { type LoggerService, type LogLevel } from '@nestjs/common';
import { type Level, type Logger } from 'pino';

type LineFields = Record<string, unknown>;

export class NestJsonLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, splitContext(params));
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, splitContextAndStack(params));
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, splitContext(params));
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, splitContext(params));
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, splitContext(params));
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, splitContext(params));
  }

  /** Nest passes the levels to keep; pino keeps everything from its threshold up. */
  setLogLevels(levels: LogLevel[]): void {
    const thresholds = levels.map(pinoLevelOf);
    this.logger.level = thresholds.length === 0 ? 'silent' : lowest(thresholds);
  }

  private write(level: Level, message: unknown, args: ParsedArgs): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: LineFields = {};
    if (args.context) fields.context = args.context;
    if (args.rest.length > 0) fields.params = args.rest;

    let text: string | undefined;
    if (message instanceof Error) {
      fields.err = message;
      text = message.message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
    } else {
      text = String(message);
    }
    if (args.stack && fields.err === undefined) fields.err = errorWithStack(text ?? '', args.stack);

    if (text === undefined) this.logger[level](fields);
    else this.logger[level](fields, text);
  }
}

interface ParsedArgs {
  context?: string;
  stack?: string;
  rest: unknown[];
}

/** Nest appends the context as the last string argument (see its ConsoleLogger). */
function splitContext(params: unknown[]): ParsedArgs {
  const last = params.at(-1);
  return typeof last === 'string' ? { context: last, rest: params.slice(0, -1) } : { rest: params };
}

/** `error(message, stack?, context?)`; a lone second argument is a stack only if it looks like one. */
function splitContextAndStack(params: unknown[]): ParsedArgs {
  if (params.length === 1 && isStackTrace(params[0])) return { stack: params[0], rest: [] };
  const { context, rest } = splitContext(params);
  if (rest.length === 0) return { context, rest };
  const last = rest.at(-1);
  if (typeof last === 'string') return { context, stack: last, rest: rest.slice(0, -1) };
  // Nest's Logger pads a missing stack with undefined before the context.
  if (last === undefined) return { context, rest: rest.slice(0, -1) };
  return { context, rest };
}

function isStackTrace(value: unknown): value is string {
  return typeof value === 'string' && /^.+\n\s+at .+:\d+:\d+/.test(value);
}

function errorWithStack(message: string, stack: string): Error {
  const error = new Error(message);
  error.stack = stack;
  return error;
}

function pinoLevelOf(level: LogLevel): Level {
  switch (level) {
    case 'verbose':
      return 'trace';
    case 'debug':
      return 'debug';
    case 'log':
      return 'info';
    case 'warn':
      return 'warn';
    case 'error':
      return 'error';
    case 'fatal':
      return 'fatal';
  }
}

const PINO_ORDER: readonly Level[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

function lowest(levels: Level[]): Level {
  return levels.reduce((a, b) => (PINO_ORDER.indexOf(a) <= PINO_ORDER.indexOf(b) ? a : b));
}
