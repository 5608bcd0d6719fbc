/**
 * Who a change is made by, carried with it: each HTTP request runs in its own context (an
 * AsyncLocalStorage, by @fastify/request-context), and every outbox message written while it
 * runs is stamped with the request's principal, how it proved who it is, its source address
 * and its request id. Work outside a request (consumers, timers, leaders) is Careen's own:
 * `careen:<service>`. The exchange's audit trail reads these headers off every event.
 */
import { type AuthenticatedRequest, type CredentialKind, principalId, type Principal } from '@careen/auth';
import { ACTOR_HEADERS } from '@careen/contracts';
import {
  asyncLocalStorage,
  fastifyRequestContext,
  requestContext,
  type RequestContext,
} from '@fastify/request-context';
import { type FastifyInstance, type FastifyRequest } from 'fastify';

/** What the audit headers read of a request: an HTTP request's, or a bus request's. */
type ActingRequest = Pick<FastifyRequest, 'ip' | 'id'> &
  Pick<AuthenticatedRequest, 'principal' | 'credential'>;

declare module '@fastify/request-context' {
  interface RequestContextData {
    request: ActingRequest;
  }
}

/** How a principal proved who it is: its key, its identity provider, or the kind of credential. */
function viaOf(principal: Principal, credential: string | undefined): string {
  if (principal.kind === 'service') return `key:${principal.key}`;
  if (principal.kind === 'user' && principal.idp !== undefined) return `sso:${principal.idp}`;
  return credential ?? 'unknown';
}

/**
 * Makes `principal` the actor of what the current request changes from now on: a sign-in, which
 * needs no credential to call, acts as the user it signs in once it knows who that is.
 */
export function actAs(principal: Principal): void {
  const request = requestContext.get('request');
  if (request) request.principal = principal;
}

/**
 * Runs `work` as a request on the bus made by `principal`: what it changes is stamped with the
 * principal, as an HTTP request's changes are, the subject standing for the request id.
 */
export function actingOnBus<T>(
  principal: Principal,
  credential: CredentialKind,
  subject: string,
  work: () => Promise<T>,
): Promise<T> {
  const request: ActingRequest = { principal, credential, ip: '', id: subject };
  // The store is the context's data (the package's typing says otherwise).
  return asyncLocalStorage.run({ request } as unknown as RequestContext, work);
}

/** Runs each request of the service in a context of its own. */
export async function useActingContext(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyRequestContext, {
    defaultStoreValues: (request) => ({ request: request as FastifyRequest & AuthenticatedRequest }),
  });
}

/**
 * The actor headers of Careen's own work. Given to a change that a request causes but Careen
 * decides (a failure threshold disabling a policy), they replace the requester's; the request
 * id stays, to tell what caused it.
 */
export function careenActorHeaders(service: string): Record<string, string> {
  return {
    [ACTOR_HEADERS.actor]: `careen:${service}`,
    [ACTOR_HEADERS.kind]: 'careen',
    [ACTOR_HEADERS.via]: '',
    [ACTOR_HEADERS.source]: '',
  };
}

/** The audit headers of a message written now, by `service`. */
export function actingHeaders(service: string): Record<string, string> {
  const request = requestContext.get('request');
  const principal = request?.principal;
  if (!request || !principal) return careenActorHeaders(service);
  return {
    [ACTOR_HEADERS.actor]: principalId(principal),
    [ACTOR_HEADERS.kind]: principal.kind,
    [ACTOR_HEADERS.via]: viaOf(principal, request.credential),
    [ACTOR_HEADERS.source]: request.ip,
    [ACTOR_HEADERS.request]: String(request.id),
  };
}
