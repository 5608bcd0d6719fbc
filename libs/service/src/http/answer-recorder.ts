/**
 * Keeps samples of what a service answers — method, route, status, content type and the JSON
 * body — as lines in a folder, for the contract check that holds each one against the
 * service's OpenAPI document. The test harness turns it on; a deployed service never does.
 */
import { type FastifyInstance } from 'fastify';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface RecordedAnswer {
  service: string;
  method: string;
  /** The route as Fastify names it, parameters as `:name`. */
  route: string;
  status: number;
  contentType?: string;
  /** The JSON body sent; absent for anything else, and for a 204 or 304. */
  body?: unknown;
}

const BODILESS = new Set([204, 304]);

/**
 * @param samples how many answers of one route and status a process keeps: enough to see
 *   their variety, few enough that a fleet's polls do not fill the disk
 */
export function recordAnswers(fastify: FastifyInstance, folder: string, service: string, samples = 20): void {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${service}-${process.pid}.jsonl`);
  const kept = new Map<string, number>();
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const route = request.routeOptions.url;
    // No route matched: nothing of the document answered.
    if (route === undefined || request.method === 'HEAD') return done(null, payload);
    const key = `${request.method} ${route} ${reply.statusCode}`;
    const count = kept.get(key) ?? 0;
    if (count >= samples) return done(null, payload);
    kept.set(key, count + 1);
    const contentType = reply.getHeader('content-type');
    const json =
      typeof payload === 'string' &&
      String(contentType).startsWith('application/json') &&
      !BODILESS.has(reply.statusCode);
    const answer: RecordedAnswer = {
      service,
      method: request.method,
      route,
      status: reply.statusCode,
      ...(contentType !== undefined && { contentType: String(contentType) }),
      ...(json && { body: JSON.parse(payload) as unknown }),
    };
    appendFileSync(file, `${JSON.stringify(answer)}\n`);
    done(null, payload);
  });
}
