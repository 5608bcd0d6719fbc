/**
 * A service account's requests on the bus, on its org's own subjects (core NATS request-reply,
 * queue group `maintenance-session`): `careen.requests.<org>.maintenance.start` with the body of
 * `POST /v1/maintenance`, and `….complete` with `{session_id, host}`, what `MAINTENANCE_COMPLETE`
 * says. Each carries `Authorization: Bearer <key>` (or a user's token), checked as the HTTP
 * routes check it: the key must be live and hold `maintenance:write`, the subject's org must be
 * the account's, and the session the org's. What the request changes is recorded as the
 * account's. The NATS credentials the exchange issues a key may publish on its own org's
 * subjects only, so the server refuses the rest before it gets here. The answer is the session
 * (`{session_id, state}`, with `host` for a completion) or the error body HTTP would give.
 */
import { assertAccess, authenticateHeader, principalId, type CredentialCheckers } from '@careen/auth';
import { DomainError, IDENTIFIER_PATTERN, IDENTIFIER_RULE, ORG_REQUEST_SUBJECTS } from '@careen/contracts';
import { actingOnBus, createValidationPipe } from '@careen/service';
import { ApiProperty } from '@nestjs/swagger';
import { type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { IsUUID, Matches } from 'class-validator';
import { CreateSessionDto } from '../sessions/dto/create-session.dto';
import { type MaintenanceSessions } from '../sessions/maintenance-sessions';
import { errorOf } from './session-requests';

/** `{session_id, host}`: the host of that session is done. */
export class CompleteHostRequestDto {
  @ApiProperty()
  @IsUUID('4', { message: 'session_id must be a session id' })
  session_id!: string;

  @ApiProperty()
  @Matches(IDENTIFIER_PATTERN, { message: `host must be ${IDENTIFIER_RULE}` })
  host!: string;
}

export function answerOrgRequests(
  nc: NatsConnection,
  sessions: MaintenanceSessions,
  checkers: CredentialCheckers,
  logger: { warn(fields: object, message: string): void },
): Subscription {
  const pipe = createValidationPipe();
  const body = async <T>(message: Msg, metatype: new () => T): Promise<T> =>
    (await pipe.transform(message.json(), { type: 'body', metatype })) as T;

  const answer = async (message: Msg): Promise<object> => {
    const [, , org = '', , action] = message.subject.split('.');
    const { principal, via } = await authenticateHeader(
      message.headers?.get('authorization') || undefined,
      checkers,
    );
    assertAccess(principal, { role: 'operator', resource: 'maintenance', org });
    return actingOnBus(principal, via, message.subject, async () => {
      if (action === 'start') {
        const request = await body(message, CreateSessionDto);
        if (request.org !== undefined && request.org !== org) {
          throw new DomainError(
            'invalid',
            'maintenance.org-mismatch',
            `org: the request is on org "${org}"'s subject`,
          );
        }
        const created = await sessions.create(org, principalId(principal), request);
        return { session_id: created.session_id, state: created.state };
      }
      if (action === 'complete') {
        const request = await body(message, CompleteHostRequestDto);
        assertAccess(principal, {
          role: 'operator',
          resource: 'maintenance',
          org: await sessions.orgOf(request.session_id),
        });
        const view = await sessions.completeHost(request.session_id, request.host, principalId(principal));
        return { session_id: view.session_id, host: request.host, state: view.state };
      }
      throw new DomainError(
        'not-found',
        'NOT_FOUND',
        `no request "${action}": the subjects are ${ORG_REQUEST_SUBJECTS.start(org)} and ${ORG_REQUEST_SUBJECTS.complete(org)}`,
      );
    });
  };

  return nc.subscribe(ORG_REQUEST_SUBJECTS.any, {
    queue: 'maintenance-session',
    callback: (error, message) => {
      if (error) return;
      void answer(message)
        .catch((failure: unknown) => {
          const refused = errorOf(failure);
          logger.warn({ subject: message.subject, answer: refused }, 'bus request refused');
          return refused;
        })
        .then((answered) => message.respond(JSON.stringify(answered)));
    },
  });
}
