import { Logger } from '@nestjs/common';
import { createLogger } from './logger';
import { memoryDestination, type MemoryDestination } from './memory-destination.fixture';
import { NestJsonLogger } from './nest-json-logger';

describe('NestJsonLogger', () => {
  let out: MemoryDestination;
  let logger: NestJsonLogger;

  beforeEach(() => {
    out = memoryDestination();
    logger = new NestJsonLogger(createLogger('exchange', { level: 'trace', destination: out }));
  });

  it('puts Nest’s trailing context argument in a context field', () => {
    logger.log('Mapped {/api/v1/orgs, GET} route', 'RouterExplorer');
    logger.warn('slow query', 'OrgsService');

    expect(out.records()).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'Mapped {/api/v1/orgs, GET} route',
        context: 'RouterExplorer',
      }),
      expect.objectContaining({ level: 'warn', msg: 'slow query', context: 'OrgsService' }),
    ]);
  });

  it('maps every Nest level to a pino level label', () => {
    logger.log('a');
    logger.error('b');
    logger.warn('c');
    logger.debug('d');
    logger.verbose('e');
    logger.fatal('f');

    expect(out.records().map((r) => [r.msg, r.level])).toEqual([
      ['a', 'info'],
      ['b', 'error'],
      ['c', 'warn'],
      ['d', 'debug'],
      ['e', 'trace'],
      ['f', 'fatal'],
    ]);
    expect(out.records()[0]).not.toHaveProperty('context');
  });

  it('puts an error’s message in msg and its stack in err', () => {
    const failure = new Error('connection refused');
    logger.error(failure, undefined, 'ExceptionsHandler');

    const [line] = out.records();
    expect(line).toMatchObject({ level: 'error', msg: 'connection refused', context: 'ExceptionsHandler' });
    expect(line?.err).toMatchObject({ type: 'Error', message: 'connection refused', stack: failure.stack });
  });

  it('treats error(message, stack, context) as Nest does', () => {
    const stack = new Error('shutdown failed').stack ?? '';
    logger.error('Error during shutdown', stack, 'NestApplicationContext');

    const [line] = out.records();
    expect(line).toMatchObject({ msg: 'Error during shutdown', context: 'NestApplicationContext' });
    expect(line?.err).toMatchObject({ message: 'Error during shutdown', stack });
  });

  it('reads a lone second argument to error() as a stack only when it looks like one', () => {
    const stack = new Error('boom').stack ?? '';
    logger.error('with stack', stack);
    logger.error('with context', 'Bootstrap');

    const [withStack, withContext] = out.records();
    expect(withStack).not.toHaveProperty('context');
    expect(withStack?.err).toMatchObject({ stack });
    expect(withContext).toMatchObject({ context: 'Bootstrap' });
    expect(withContext).not.toHaveProperty('err');
  });

  it('merges an object message into the line', () => {
    logger.log({ event: 'node.registered', nodeId: 'n-1' }, 'NodesService');

    expect(out.records()[0]).toMatchObject({
      event: 'node.registered',
      nodeId: 'n-1',
      context: 'NodesService',
    });
  });

  it('works behind Nest’s own Logger with a context', () => {
    Logger.overrideLogger(logger);
    try {
      new Logger('HealthController').log('ready');
      new Logger('ExceptionsHandler').error(new Error('unexpected'));
    } finally {
      Logger.overrideLogger(false);
    }

    const [ready, failure] = out.records();
    expect(ready).toMatchObject({ level: 'info', msg: 'ready', context: 'HealthController' });
    expect(failure).toMatchObject({ level: 'error', msg: 'unexpected', context: 'ExceptionsHandler' });
    expect(failure?.err).toMatchObject({ message: 'unexpected' });
  });

  it('keeps only the levels Nest asks for', () => {
    logger.setLogLevels(['warn', 'error', 'fatal']);
    logger.log('dropped');
    logger.debug('dropped');
    logger.warn('kept');

    expect(out.records().map((r) => r.msg)).toEqual(['kept']);
  });
});
