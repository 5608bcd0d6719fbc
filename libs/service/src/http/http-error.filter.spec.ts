import { DomainError } from '@careen/contracts';
import { filterAnswer } from '@careen/testing';
import { BadRequestException, ConsoleLogger, PayloadTooLargeException } from '@nestjs/common';
import { HttpErrorFilter } from './http-error.filter';

const answerTo = (exception: unknown) => filterAnswer(new HttpErrorFilter(new ConsoleLogger()), exception);

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
        details: { code: 'SERVICE_UNAVAILABLE' },
      },
    });
    expect(answerTo(new Error('something else')).status).toBe(500);
  });

  it('answers 503 with Retry-After when Postgres ended the transaction to break a deadlock', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const wrapped = Object.assign(new Error('deadlock detected'), { driverError: deadlock });
    expect(answerTo(wrapped)).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { message: 'the request collided with another one at the database; try again' },
    });
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(answerTo(unique).status).toBe(500);
  });

  it("gives an HTTP exception without a code of its own its status in words, and keeps a pipe's fields", () => {
    expect(answerTo(new PayloadTooLargeException('too big')).body).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'too big',
      details: { code: 'PAYLOAD_TOO_LARGE' },
    });
    const fields = [{ field: 'id', problems: ['id must be a string'] }];
    expect(
      answerTo(
        new BadRequestException({
          message: 'invalid request: id',
          details: { code: 'INVALID_REQUEST', fields },
        }),
      ).body,
    ).toMatchObject({ details: { code: 'INVALID_REQUEST', fields } });
  });
});
