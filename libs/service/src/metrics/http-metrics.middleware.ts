import { type NextFunction, type Request, type Response } from 'express';
import { type MetricsRegistry } from './metrics.registry';

/** Times every request; the route label is the matched pattern, never the raw path. */
export function httpMetricsMiddleware(metrics: MetricsRegistry) {
  return (request: Request, response: Response, next: NextFunction) => {
    const end = metrics.httpDuration.startTimer({ method: request.method });
    response.once('finish', () => {
      const route = (request.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ route, status: String(response.statusCode) });
    });
    next();
  };
}
