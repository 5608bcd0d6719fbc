/**
 * Keeps samples of what a service answers — method, route, status, content type and the JSON
 * body — as lines in a folder, for the contract check that holds each one against the
 * service's OpenAPI document. The test harness turns it on; a deployed service never does.
 */
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface RecordedAnswer {
  service: string;
  method: string;
  /** The route as Express names it, parameters as `:name`. */
  route: string;
  status: number;
  contentType?: string;
  /** What went out through `response.json`; absent for anything else, and for a 204 or 304. */
  body?: unknown;
}

const BODILESS = new Set([204, 304]);

/**
 * @param samples how many answers of one route and status a process keeps: enough to see
 *   their variety, few enough that a fleet's polls do not fill the disk
 */
export function answerRecorder(folder: string, service: string, samples = 20): RequestHandler {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${service}-${process.pid}.jsonl`);
  const kept = new Map<string, number>();
  return (request: Request, response: Response, next: NextFunction) => {
    let body: unknown;
    const json = response.json.bind(response);
    response.json = (value: unknown) => {
      body = value;
      return json(value);
    };
    response.on('finish', () => {
      const matched = (request.route as { path?: string } | undefined)?.path;
      // No route matched: nothing of the document answered.
      if (matched === undefined || request.method === 'HEAD') return;
      const route = `${request.baseUrl}${matched}`;
      const key = `${request.method} ${route} ${response.statusCode}`;
      const count = kept.get(key) ?? 0;
      if (count >= samples) return;
      kept.set(key, count + 1);
      const contentType = response.getHeader('content-type');
      const answer: RecordedAnswer = {
        service,
        method: request.method,
        route,
        status: response.statusCode,
        ...(contentType !== undefined && { contentType: String(contentType) }),
        // Express sends no body with a 204 or a 304, whatever was handed to `json`.
        ...(body !== undefined && !BODILESS.has(response.statusCode) && { body }),
      };
      appendFileSync(file, `${JSON.stringify(answer)}\n`);
    });
    next();
  };
}
