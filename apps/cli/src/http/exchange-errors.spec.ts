import { ApiError, ServiceUnreachable } from '@careen/api-client';
import { cliErrorOf, ExchangeRefusal, ExchangeUnreachable, fieldProblems, refusal } from './exchange-errors';

const URL = 'http://localhost:8080';

describe('error mapping', () => {
  it('shows the message and status of an error answer', () => {
    const error = refusal(
      409,
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
      {
        statusCode: 400,
        error: 'Bad Request',
        message:
          'invalid request: role: role must be one of the following values: hubAdmin, orgAdmin, user; password: too short',
        details: {
          code: 'INVALID_REQUEST',
          fields: [
            {
              field: 'role',
              problems: ['role must be one of the following values: hubAdmin, orgAdmin, user'],
            },
            { field: 'password', problems: ['too short', 'too simple'] },
          ],
        },
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
    expect(refusal(401, body(401, 'token expired'), URL, 'run "careen login"').message).toBe(
      'token expired (401); run "careen login"',
    );
    expect(refusal(403, body(403, 'forbidden'), URL, 'run "careen login"').message).toBe('forbidden (403)');
  });

  it('says when the answer is not one of an exchange', () => {
    expect(refusal(502, undefined, URL).message).toBe(
      'the exchange at http://localhost:8080 answered 502 Bad Gateway; is that URL a Careen exchange?',
    );
    expect(refusal(404, '<html>', URL).body).toBeUndefined();
    expect(refusal(200, undefined, URL).message).toBe(
      'the exchange at http://localhost:8080 answered 200 OK; is that URL a Careen exchange?',
    );
  });

  it('recognizes only well-formed field details', () => {
    expect(fieldProblems({ code: 'X', fields: [{ field: 'id', problems: ['bad'] }] })).toEqual([
      { field: 'id', problems: ['bad'] },
    ]);
    expect(fieldProblems({ code: 'X' })).toBeUndefined();
    expect(fieldProblems({ code: 'X', fields: [] })).toBeUndefined();
    expect(fieldProblems({ code: 'X', fields: [{ field: 'id', problems: [1] }] })).toBeUndefined();
    expect(fieldProblems(undefined)).toBeUndefined();
  });

  it("turns a client's failures into the CLI's errors, and leaves any other as it is", () => {
    const refused = cliErrorOf(
      new ApiError(
        401,
        {
          statusCode: 401,
          error: 'Unauthorized',
          message: 'token expired',
          details: { code: 'TOKEN_EXPIRED' },
        },
        `${URL}/v1/orgs/acme`,
      ),
      URL,
      'run "careen login"',
    );
    expect(refused).toBeInstanceOf(ExchangeRefusal);
    expect((refused as ExchangeRefusal).lines()).toEqual(['error: token expired (401); run "careen login"']);

    const proxied = cliErrorOf(new ApiError(502, undefined, `${URL}/v1/orgs`), URL) as ExchangeRefusal;
    expect([proxied.status, proxied.body, proxied.message]).toEqual([
      502,
      undefined,
      'the exchange at http://localhost:8080 answered 502 Bad Gateway; is that URL a Careen exchange?',
    ]);

    const unreachable = cliErrorOf(new ServiceUnreachable(`${URL}/v1/orgs`, 'ECONNREFUSED'), URL);
    expect(unreachable).toBeInstanceOf(ExchangeUnreachable);
    expect((unreachable as ExchangeUnreachable).lines()).toEqual([
      'error: cannot reach the exchange at http://localhost:8080 (ECONNREFUSED)',
    ]);

    const hungUp = new DOMException('This operation was aborted', 'AbortError');
    expect(cliErrorOf(hungUp, URL)).toBe(hungUp);
  });
});
