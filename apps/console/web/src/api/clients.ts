/**
 * Typed clients of the five services, reached under their path prefixes on the console's own
 * origin, checked against the services' OpenAPI documents (generated into the api-client
 * library). Every request carries the signed-in user's current token; a 401 ends the sign-in.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths as AgbotPaths } from '@careen/api-client/src/generated/agbot';
import type { paths as OrchestratorPaths } from '@careen/api-client/src/generated/deployment-orchestrator';
import type { paths as ExchangePaths } from '@careen/api-client/src/generated/exchange';
import type { paths as MaintenancePaths } from '@careen/api-client/src/generated/maintenance-session';
import type { Identity } from './identity';
import { ApiProblem, problemFrom } from './problem';
import type { TokenSession } from './token-session';

export interface Clients {
  exchange: Client<ExchangePaths>;
  agbot: Client<AgbotPaths>;
  maintenance: Client<MaintenancePaths>;
  orchestrator: Client<OrchestratorPaths>;
  /** The signed-in user's current token, for requests the typed clients do not make (event streams). */
  readonly authorization: string;
}

/** Called when a service refuses the token: it expired, or the user or their org was removed. */
export type OnUnauthorized = (problem: ApiProblem) => void;

export function createClients(identity: Identity, onUnauthorized: OnUnauthorized): Clients {
  const { session } = identity;
  const make = <Paths extends object>(prefix: string, service: string): Client<Paths> => {
    const client = createClient<Paths>({ baseUrl: `${window.location.origin}/${prefix}` });
    client.use(signedIn(session, service, onUnauthorized));
    return client;
  };
  return {
    exchange: make<ExchangePaths>('exchange', 'exchange'),
    agbot: make<AgbotPaths>('agbot', 'agbot'),
    maintenance: make<MaintenancePaths>('maintenance', 'maintenance'),
    orchestrator: make<OrchestratorPaths>('orchestrator', 'deployment orchestrator'),
    get authorization() {
      return session.authorization;
    },
  };
}

function signedIn(session: TokenSession, service: string, onUnauthorized: OnUnauthorized): Middleware {
  return {
    onRequest({ request }) {
      // Read on every request: the session renews the token while the console is open.
      request.headers.set('authorization', session.authorization);
      return request;
    },
    async onResponse({ response }) {
      if (response.status === 401) {
        const body: unknown = await response
          .clone()
          .json()
          .catch(() => undefined);
        onUnauthorized(problemFrom(401, body, service));
      }
      return response;
    },
  };
}

/**
 * The data of a typed client's answer, or the service's refusal thrown as an ApiProblem.
 * A request that never got an answer is thrown as one too, with status 0.
 */
export async function read<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  service: string,
): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiProblem(0, `The ${service} cannot be reached (${(error as Error).message}).`, 'UNREACHABLE');
  }
  if (answer.response.ok) return answer.data as T;
  throw problemFrom(answer.response.status, answer.error, service);
}
