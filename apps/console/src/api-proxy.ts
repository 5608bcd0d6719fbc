/**
 * Passes a request for one service's API on to that service, streaming both ways (long polls
 * and event streams stay open), with the path prefix taken off as the Ingress does:
 * `/exchange/v1/orgs` reaches the exchange as `/v1/orgs`. The request's credentials go along
 * untouched; the service decides what they may do.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Headers that belong to one connection, not to the request (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface Upstream {
  /** The service's name, in errors. */
  service: string;
  url: URL;
}

export function proxyToService(
  upstream: Upstream,
  request: IncomingMessage,
  response: ServerResponse,
  pathAndQuery: string,
): void {
  const target = new URL(upstream.url.pathname.replace(/\/+$/, '') + pathAndQuery, upstream.url);
  const headers = forwardedHeaders(request);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const outgoing = send(target, { method: request.method, headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopByHop(answer.headers));
    // Event streams are written through as they come.
    response.flushHeaders();
    answer.pipe(response);
    answer.on('error', () => response.destroy());
  });
  outgoing.on('error', (error) => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const body = JSON.stringify({
      statusCode: 502,
      error: 'Bad Gateway',
      message: `the ${upstream.service} service did not answer: ${error.message}`,
      details: { code: 'BAD_GATEWAY', service: upstream.service },
    });
    response.writeHead(502, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  // A browser that goes away (a page left, a long poll cancelled) ends the service's request too.
  response.on('close', () => {
    if (!response.writableFinished) outgoing.destroy();
  });
  request.pipe(outgoing);
}

function forwardedHeaders(request: IncomingMessage): Record<string, string | string[]> {
  const headers = withoutHopByHop(request.headers);
  const client = request.socket.remoteAddress;
  const before = request.headers['x-forwarded-for'];
  if (client) headers['x-forwarded-for'] = before ? `${String(before)}, ${client}` : client;
  headers['x-forwarded-host'] = request.headers.host ?? '';
  return headers;
}

function withoutHopByHop(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}
