import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseBusy, isDatabaseUnavailable } from './database-unavailable';

/** An error as node-postgres raises it, with a SQLSTATE or a socket code. */
const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });
/** As TypeORM wraps it. */
const wrapped = (driverError: Error) => Object.assign(new Error(driverError.message), { driverError });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a server shutting down', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    ['a database that is not there', withCode('3D000', 'database "careen" does not exist')],
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a connection failure, wrapped by TypeORM', wrapped(withCode('08006'))],
    ['a connection that went away', new Error('Connection terminated unexpectedly')],
    ['a pool whose connections all stayed in use', new Error('timeout exceeded when trying to connect')],
    ['a new connection not opened in time', new Error('Connection terminated due to connection timeout')],
    ['a transaction whose connection broke under it', new QueryRunnerAlreadyReleasedError()],
    ['a query on a connection broken meanwhile', new QueryRunnerProviderAlreadyReleasedError()],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', wrapped(withCode('23505', 'duplicate key value violates unique constraint'))],
    ['a syntax error', withCode('42601')],
    ['any other error', new Error('internal')],
    ['something not an error', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isDatabaseBusy', () => {
  it('is true only when the wait for a pooled connection ran out, wrapped or not', () => {
    const expired = new Error('timeout exceeded when trying to connect');
    expect([expired, wrapped(expired)].map(isDatabaseBusy)).toEqual([true, true]);
    expect(
      [
        new Error('Connection terminated due to connection timeout'),
        withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
        withCode('57P01', 'terminating connection due to administrator command'),
      ].map(isDatabaseBusy),
    ).toEqual([false, false, false]);
  });
});
