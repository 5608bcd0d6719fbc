/**
 * The console's HTTP server: the app's files, and each service's API under the path prefix
 * the Kubernetes Ingress gives it (`/exchange`, `/agbot`, `/maintenance`, `/orchestrator`,
 * `/notifier`), so that the browser reaches everything from one origin. Behind the Ingress the
 * prefixes never reach this server and no upstream is configured. A service's /metrics is
 * never served from this origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { proxyToService, type Upstream } from './api-proxy';
import { SECURITY_HEADERS, StaticFiles } from './static-files';

/** The path prefixes of the services' APIs, and the services they name. */
export const API_PREFIXES = {
  exchange: 'exchange',
  agbot: 'agbot',
  maintenance: 'maintenance-session',
  orchestrator: 'deployment-orchestrator',
  notifier: 'notifier',
} as const;

export type ApiPrefix = keyof typeof API_PREFIXES;

export interface ConsoleServerOptions {
  /** The built app. */
  root: string;
  /** Where each prefix's requests go; a prefix without one is answered 502. */
  upstreams: Partial<Record<ApiPrefix, string | undefined>>;
}

export function createConsoleServer(options: ConsoleServerOptions): Server {
  const files = new StaticFiles(options.root);
  const upstreams = new Map<string, Upstream>(
    Object.entries(options.upstreams)
      .filter((entry): entry is [string, string] => Boolean(entry[1]))
      .map(([prefix, url]) => [prefix, { service: API_PREFIXES[prefix as ApiPrefix], url: new URL(url) }]),
  );
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://console');
    const [, first = '', ...rest] = url.pathname.split('/');
    if (first in API_PREFIXES && rest[0] === 'metrics') {
      // A service's metrics name its nodes, orgs and load: for the scraper inside the cluster,
      // which reads each service's /metrics directly, not for the public origin.
      answerJson(response, 404, {
        statusCode: 404,
        error: 'Not Found',
        message: `the ${API_PREFIXES[first as ApiPrefix]} service's metrics are not served here; scrape the service itself`,
        details: { code: 'NOT_FOUND', service: API_PREFIXES[first as ApiPrefix] },
      });
      return;
    }
    if (first in API_PREFIXES) {
      const upstream = upstreams.get(first);
      if (!upstream) {
        answerJson(response, 502, {
          statusCode: 502,
          error: 'Bad Gateway',
          message: `this console does not reach the ${API_PREFIXES[first as ApiPrefix]} service: route /${first}/ to it`,
          details: { code: 'BAD_GATEWAY', service: API_PREFIXES[first as ApiPrefix] },
        });
        return;
      }
      proxyToService(upstream, request, response, `/${rest.join('/')}${url.search}`);
      return;
    }
    if (url.pathname === '/healthz') {
      answerJson(response, 200, { status: 'ok' });
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      answerJson(
        response,
        405,
        {
          statusCode: 405,
          error: 'Method Not Allowed',
          message: `the console's pages are read with GET, not ${request.method}`,
          // Names the console to a client that took it for a service (`careen login` given its URL).
          details: { code: 'METHOD_NOT_ALLOWED', service: 'console' },
        },
        { allow: 'GET, HEAD' },
      );
      return;
    }
    files.serve(request, response, url.pathname);
  });
}

function answerJson(
  response: ServerResponse<IncomingMessage>,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
