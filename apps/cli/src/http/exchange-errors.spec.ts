import { ExchangeUnreachable, failureReason, fieldProblems, refusal } from './exchange-errors';

const URL = 'http://localhost:8080';

describe('error mapping', () => {
  it('shows the message and status of an error answer', () => {
    const error = refusal(
      409,
      'Conflict',
      {
        statusCode: 409,
        error: 'Conflict',
        message: 'user "acme/bob" already exists',
        details: { code: 'USER_EXISTS' },
      },
      URL,
    );
    expect(error.lines()).toEqual(['error: user "acme/bob" already exists (409)']);
    expect(error.exitCode).toBe(1);
    expect(error.status).toBe(409);
  });

  it('lists each invalid field of a 400 on its own line', () => {
    const error = refusal(
      400,
      'Bad Request',
      {
        statusCode: 400,
        error: 'Bad Request',
        message:
          'invalid request: role: role must be one of the following values: hubAdmin, orgAdmin, user; password: too short',
        details: [
          { field: 'role', problems: ['role must be one of the following values: hubAdmin, orgAdmin, user'] },
          { field: 'password', problems: ['too short', 'too simple'] },
        ],
      },
      URL,
    );
    expect(error.lines()).toEqual([
      'error: invalid request (400)',
      '  role: role must be one of the following values: hubAdmin, orgAdmin, user',
      '  password: too short; too simple',
    ]);
  });

  it('adds what to do about the credentials to a 401 only', () => {
    const body = (statusCode: number, message: string) => ({
      statusCode,
      error: 'x',
      message,
      details: { code: 'X' },
    });
    expect(refusal(401, 'Unauthorized', body(401, 'token expired'), URL, 'run "careen login"').message).toBe(
      'token expired (401); run "careen login"',
    );
    expect(refusal(403, 'Forbidden', body(403, 'forbidden'), URL, 'run "careen login"').message).toBe(
      'forbidden (403)',
    );
  });

  it('says when the answer is not one of an exchange', () => {
    expect(refusal(502, 'Bad Gateway', undefined, URL).message).toBe(
      'the exchange at http://localhost:8080 answered 502 Bad Gateway; is that URL a Careen exchange?',
    );
    expect(refusal(404, 'Not Found', '<html>', URL).body).toBeUndefined();
  });

  it('recognizes only well-formed field details', () => {
    expect(fieldProblems([{ field: 'id', problems: ['bad'] }])).toEqual([{ field: 'id', problems: ['bad'] }]);
    expect(fieldProblems({ code: 'X' })).toBeUndefined();
    expect(fieldProblems([])).toBeUndefined();
    expect(fieldProblems([{ field: 'id', problems: [1] }])).toBeUndefined();
  });

  it('names the system reason of a request that got no answer', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(failureReason(refused, 30_000)).toBe('ECONNREFUSED');

    const everyAddress = new TypeError('fetch failed', {
      cause: new AggregateError([
        Object.assign(new Error('a'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('b'), { code: 'ENETUNREACH' }),
      ]),
    });
    expect(failureReason(everyAddress, 30_000)).toBe('ECONNREFUSED');

    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(failureReason(timeout, 30_000)).toBe('no answer within 30s');

    expect(new ExchangeUnreachable(URL, 'ECONNREFUSED').lines()).toEqual([
      'error: cannot reach the exchange at http://localhost:8080 (ECONNREFUSED)',
    ]);
  });
});
