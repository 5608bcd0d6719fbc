/** The maintenance service's refusals, each with a stable code; transports map the kind once. */
import { DomainError, fieldsOf } from '@careen/contracts';
import { type PlanProblem } from '../workflow/session-planner';

export const sessionNotFound = (id: string) =>
  new DomainError('not-found', 'maintenance.session-not-found', `no maintenance session "${id}"`, {
    session_id: id,
  });

export const invalidSession = (problems: readonly PlanProblem[]) =>
  new DomainError(
    'invalid',
    'maintenance.invalid-request',
    `invalid request: ${problems.map((each) => `${each.path}: ${each.problem}`).join('; ')}`,
    { fields: fieldsOf(problems) },
  );

export const hostsInOpenSession = (holders: readonly { host: string; session: string }[]) =>
  new DomainError(
    'conflict',
    'maintenance.host-in-open-session',
    holders.map((each) => `host "${each.host}" is in open session ${each.session}`).join('; '),
    { holders },
  );

export const replyRefused = (why: string, code = 'maintenance.reply-refused') =>
  new DomainError('conflict', code, why);

export const invalidReply = (why: string) => new DomainError('invalid', 'maintenance.invalid-reply', why);

export const capabilityRefused = () =>
  new DomainError(
    'forbidden',
    'maintenance.capability-refused',
    "the URL's capability does not open this session's project: use the reply_url the event carried",
  );

export const sessionFinished = (id: string, state: string) =>
  new DomainError('conflict', 'maintenance.session-finished', `session ${id} has ended (${state})`);

export const hostNotAwaited = (host: string, why: string) =>
  new DomainError('conflict', 'maintenance.host-not-awaited', `host "${host}" ${why}`);

export const exchangeUnavailable = (why: string) =>
  new DomainError('unavailable', 'maintenance.exchange-unavailable', why);
