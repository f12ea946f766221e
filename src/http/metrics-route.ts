import type { FastifyInstance } from 'fastify';
import type { RequestCounting, ServiceMetrics } from '../metrics/service-metrics.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Where this route's answers are counted (an operation's, or /mcp's); `none` on rest if absent. */
    meters?: RequestCounting;
  }
  interface FastifyRequest {
    /** Where this request is counted, where its route answers several operations (OData). */
    meters?: RequestCounting;
  }
}

export const METRICS_PATH = '/metrics';

/**
 * With metrics on: counts every answer when it is sent (`onResponse`) under its route's meters,
 * and serves the registry at GET /metrics in Prometheus's text format, without a token (keep
 * the path off the public network: docs/operations.md#metrics). With metrics off nothing is
 * installed, so /metrics is an unknown path (404) and requests pay nothing.
 */
export function installMetrics(app: FastifyInstance, metrics: ServiceMetrics | undefined): void {
  if (!metrics) return;
  const other = metrics.requestMeters(undefined, 'rest');
  app.addHook('onResponse', (request, reply, done) => {
    (request.meters ?? request.routeOptions.config.meters ?? other).record(
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get(METRICS_PATH, async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.text()),
  );
}
