/**
 * Admin tools may ask for a session over the bus: a request on `careen.requests.maintenance.start` (core
 * NATS request-reply, queue group `maintenance-session`, so one replica answers) with the body of
 * `POST /v1/maintenance`, `org` required. The answer is `{session_id, state}` or the error body
 * the HTTP route would give. Who may publish there is the NATS server's permissions' business.
 */
import { DomainError, MAINTENANCE_REQUEST_SUBJECT } from '@careen/contracts';
import { createValidationPipe, errorBody, errorBodyOf, type ErrorBody } from '@careen/service';
import { type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { CreateSessionDto } from '../sessions/dto/create-session.dto';
import { type MaintenanceSessions } from '../sessions/maintenance-sessions';

export function answerSessionRequests(
  nc: NatsConnection,
  sessions: MaintenanceSessions,
  logger: { warn(fields: object, message: string): void },
): Subscription {
  const pipe = createValidationPipe();
  return nc.subscribe(MAINTENANCE_REQUEST_SUBJECT, {
    queue: 'maintenance-session',
    callback: (error, message) => {
      if (error) return;
      void (async () => {
        let answer: object;
        try {
          const raw: unknown = message.json();
          const request = (await pipe.transform(raw, {
            type: 'body',
            metatype: CreateSessionDto,
          })) as CreateSessionDto;
          if (!request.org)
            throw new DomainError(
              'invalid',
              'maintenance.org-required',
              'org: a request on the bus names its org',
            );
          const created = await sessions.create(request.org, `bus:${MAINTENANCE_REQUEST_SUBJECT}`, request);
          answer = { session_id: created.session_id, state: created.state };
        } catch (failure) {
          answer = errorOf(failure);
          logger.warn({ subject: MAINTENANCE_REQUEST_SUBJECT, answer }, 'session request refused');
        }
        message.respond(JSON.stringify(answer));
      })();
    },
  });
}

/** The error body a bus request is answered with: HTTP's, and 503 where HTTP would answer 500. */
export function errorOf(failure: unknown): ErrorBody {
  if (failure instanceof SyntaxError) return errorBody(400, 'invalid request: the body is not JSON');
  const body = errorBodyOf(failure);
  return body.statusCode === 500
    ? errorBody(
        503,
        `the request could not be done: ${failure instanceof Error ? failure.message : String(failure)}`,
      )
    : body;
}
