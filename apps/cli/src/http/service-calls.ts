/**
 * How a command calls a Careen service: through the client generated from the service's
 * document (routes, parameters, bodies and answers checked by the compiler), with the caller's
 * credentials on every request. A call answers its data; its failure comes out as the CLI's
 * error (exchange-errors). Requests the services treat as safe to repeat (GET, PUT, DELETE) are
 * tried again after no answer or a 429, 502, 503 or 504, as `resilientFetch` does by default.
 */
import { ApiError, type BearerSource, dataOf, serviceClient, type ServiceClient } from '@careen/api-client';
import { type Middleware } from 'openapi-fetch';
import { cliErrorOf } from './exchange-errors';

/**
 * Runs one request with the service's client and answers the data of its 2xx answer; throws
 * the CliError that says what went wrong otherwise.
 */
export type Call<Paths extends object> = <T>(
  request: (api: ServiceClient<Paths>) => Promise<{ data?: T; error?: unknown; response: Response }>,
) => Promise<T>;

export interface CallOptions {
  /** The Authorization header of the caller's credentials; none for logging in. */
  authorization?: string;
  /**
   * Where the bearer token of each request comes from, instead of `authorization`: asked before
   * every request; after a 401 it is invalidated and the request sent once more.
   */
  bearer?: BearerSource;
  /** Added to the message when the service answers 401 to these credentials. */
  refusalHint?: string;
}

/** @param baseUrl normalized: no trailing slash */
export function serviceCalls<Paths extends object>(baseUrl: string, options: CallOptions = {}): Call<Paths> {
  const api = serviceClient<Paths>(baseUrl, {
    headers: options.authorization ? { authorization: options.authorization } : undefined,
  });
  api.use(ANSWERS_JSON);
  const { bearer } = options;
  if (bearer) api.use(bearerFrom(bearer));
  return async (request) => {
    try {
      return await dataOf(request(api));
    } catch (error) {
      if (!bearer || !(error instanceof ApiError) || error.status !== 401) {
        throw cliErrorOf(error, baseUrl, options.refusalHint);
      }
    }
    // A 401 refused the request before it did anything: sending it again with a renewed token is safe.
    bearer.invalidate();
    try {
      return await dataOf(request(api));
    } catch (error) {
      throw cliErrorOf(error, baseUrl, options.refusalHint);
    }
  };
}

function bearerFrom(source: BearerSource): Middleware {
  return {
    async onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${await source.bearer()}`);
      return request;
    },
  };
}

/**
 * A 2xx answer that should be JSON and is not (a proxy's or a captive portal's page) is not
 * the service's: an ApiError without a body, which the user reads as "is that URL a Careen …?".
 */
const ANSWERS_JSON: Middleware = {
  async onResponse({ response, options }) {
    if (!response.ok || options.parseAs !== 'json') return undefined;
    // A service's answers say they are JSON: only another's are read here, to see if they are empty.
    if (/json/i.test(response.headers.get('content-type') ?? '')) return undefined;
    if ((await response.clone().text()) === '') return undefined;
    throw new ApiError(response.status, undefined, response.url);
  },
};
