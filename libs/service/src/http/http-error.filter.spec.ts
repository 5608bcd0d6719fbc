import { DomainError } from '@careen/contracts';
import { type ArgumentsHost, ConsoleLogger } from '@nestjs/common';
import { HttpErrorFilter } from './http-error.filter';

/** What the filter answers for `exception`, through an Express-like response that records it. */
function answerTo(exception: unknown): { status: number; body: unknown; headers: Record<string, string> } {
  const sent = { status: 0, body: undefined as unknown, headers: {} as Record<string, string> };
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  new HttpErrorFilter(new ConsoleLogger()).catch(exception, host);
  return sent;
}

describe('HttpErrorFilter', () => {
  it('always puts the domain error code in details, beside what the error tells', () => {
    expect(answerTo(new DomainError('conflict', 'GROUP_BUSY', 'busy', { haGroup: 'g1' }))).toEqual({
      status: 409,
      headers: {},
      body: {
        statusCode: 409,
        error: 'Conflict',
        message: 'busy',
        details: { haGroup: 'g1', code: 'GROUP_BUSY' },
      },
    });
    expect(answerTo(new DomainError('not-found', 'NODE_NOT_FOUND', 'no such node')).body).toMatchObject({
      statusCode: 404,
      details: { code: 'NODE_NOT_FOUND' },
    });
  });

  it('answers 503 with Retry-After, not 500, while Postgres cannot be reached', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(answerTo(refused)).toEqual({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: {
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'the database is unavailable; try again shortly',
      },
    });
    expect(answerTo(new Error('something else')).status).toBe(500);
  });
});
