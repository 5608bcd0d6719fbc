/**
 * For the clients' tests: a real HTTP server that answers its requests one after another from a
 * list, the answers it gives, and a service document of one resource to make a client of.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface Paths {
  '/v1/things/{id}': {
    parameters: { path: { id: string }; query?: { wait?: number } };
    get: {
      parameters: { path: { id: string }; query?: { wait?: number } };
      responses: { 200: { content: { 'application/json': { id: string; seen: string } } } };
    };
    post: {
      parameters: { path: { id: string } };
      requestBody: { content: { 'application/json': { note: string } } };
      responses: { 201: { content: { 'application/json': { note: string } } } };
    };
    put: {
      parameters: { path: { id: string } };
      requestBody: { content: { 'application/json': { note: string } } };
      responses: { 204: { content: never } };
    };
  };
}

export type Answer = (request: IncomingMessage, body: string, response: ServerResponse) => void;

export interface AnsweringServer {
  url: string;
  requests: IncomingMessage[];
  /** Each request's body, as it arrived, in the order of `requests`. */
  bodies: string[];
  server: Server;
}

/**
 * Starts servers answering from `answers` (the last one again once they run out); each test's
 * servers are closed, their connections with them, after it.
 */
export function answeringServers(): (...answers: Answer[]) => Promise<AnsweringServer> {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  });
  return async (...answers) => {
    const requests: IncomingMessage[] = [];
    const bodies: string[] = [];
    const server = createServer((request, response) => {
      const index = requests.push(request) - 1;
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        bodies[index] = body;
        (answers[index] ?? answers.at(-1)!)(request, body, response);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, bodies, server };
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_request, _body, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

/** A service's refusal, in the error body every service answers with. */
export const refusal = (status: number, code: string) =>
  json(status, { statusCode: status, error: 'x', message: `refused: ${code}`, details: { code } });
