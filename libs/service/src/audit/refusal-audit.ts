/**
 * Tells the audit trail of writes refused to someone known: a change a signed-in user, node or
 * key asked for and was refused (403), with who, what route and which org. Nothing changed, so
 * there is no transaction to share: the action is published as the answer goes, and a publish
 * that fails is logged, never the request's failure.
 */
import { type AuthenticatedRequest } from '@careen/auth';
import { type EventPublisher } from '@careen/bus';
import { AuditAction } from '@careen/contracts';
import { type JsonLogger } from '@careen/telemetry';
import { type FastifyInstance } from 'fastify';
import { actingHeaders } from './acting-context';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function useRefusalAudit(
  fastify: FastifyInstance,
  service: string,
  publisher: EventPublisher,
  logger: Pick<JsonLogger, 'warn'>,
): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const principal = (request as typeof request & AuthenticatedRequest).principal;
    if (reply.statusCode === 403 && principal && !READS.has(request.method)) {
      const params = request.params as Record<string, string | undefined> | undefined;
      const org = params?.org ?? principal.org;
      const route = request.routeOptions.url ?? request.url.split('?')[0]!;
      publisher
        .publish(
          AuditAction,
          [org, service],
          { org, action: 'http.refused', target: `${request.method} ${route}`, outcome: 'refused' },
          { headers: actingHeaders(service) },
        )
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'could not tell the audit trail of a refusal'),
        );
    }
    done();
  });
}
