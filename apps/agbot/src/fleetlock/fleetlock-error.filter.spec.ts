import { type JsonLogger } from '@careen/telemetry';
import { filterAnswer } from '@careen/testing';
import { BadRequestException } from '@nestjs/common';
import { FleetLockErrorFilter } from './fleetlock-error.filter';
import { FleetLockError } from './fleetlock.errors';

const logger = { warn: () => undefined, error: () => undefined } as unknown as JsonLogger;
const answerTo = (exception: unknown) => filterAnswer(new FleetLockErrorFilter(logger), exception);

describe('FleetLockErrorFilter', () => {
  it("answers in FleetLock's shape: its own errors as they are, a bad request as invalid_client_params", () => {
    expect(answerTo(new FleetLockError('failed_lock_semaphore_full', 'held by w2'))).toEqual({
      status: 409,
      headers: {},
      body: { kind: 'failed_lock_semaphore_full', value: 'held by w2' },
    });
    expect(answerTo(new BadRequestException('group: must be a string')).body).toEqual({
      kind: 'invalid_client_params',
      value: 'group: must be a string',
    });
  });

  it('answers 503 unavailable with Retry-After, not 500, while Postgres cannot be reached', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(answerTo(refused)).toEqual({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { kind: 'unavailable', value: 'the database is unavailable; try again shortly' },
    });
    expect(answerTo(new Error('something else'))).toMatchObject({
      status: 500,
      body: { kind: 'internal_error' },
    });
  });
});
