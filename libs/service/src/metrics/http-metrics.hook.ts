import { type FastifyInstance } from 'fastify';
import { type MetricsRegistry } from './metrics.registry';

/** Times every request; the route label is the matched pattern, never the raw path. */
export function useHttpMetrics(fastify: FastifyInstance, metrics: MetricsRegistry): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
