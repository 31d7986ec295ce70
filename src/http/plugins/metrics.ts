import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { HttpProblem } from '../problem.ts';
import { ApiRateLimitExceeded } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

/**
 * prom-client's default collectors also export these gauges, each the sum of a series the registry has
 * anyway (`nodejs_active_handles` by type, …). A gauge named `_total` reads as a counter, which promtool
 * refuses; the sums are one `sum()` away.
 */
const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Which limit refused a request with 429: the API's own per user or IP, or a rule of the route. */
interface RateLimited {
  readonly code: string;
  readonly limit: 'api' | 'files' | 'route';
}

/**
 * Request count and latency by route pattern (never the raw URL, which would explode cardinality
 * and could carry ids or signatures) and status code. Each app gets its own registry.
 */
export const metricsPlugin = fp(
  (
    app: FastifyInstance,
    options: {
      registry?: Registry;
      /** What `/metrics` answers, when it is more than this registry (every process of a cluster). */
      exposition?: () => Promise<string>;
    },
  ) => {
    const registry = options.registry ?? new Registry();
    // The event-loop lag metric samples at this precision: the default 10 ms wakes an idle process 100
    // times a second (decision 022).
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
    for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
    const labelNames = ['method', 'route', 'status_code'] as const;
    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames,
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    const rateLimited = new Counter({
      name: 'http_rate_limited_total',
      help:
        'Requests this service refused with 429, by route, problem code and limit: api (API_RATE_LIMIT_PER_MINUTE ' +
        'per user or IP), files (FILES_RATE_LIMIT_PER_MINUTE per IP on the signed file links) or route (its ' +
        'own rule: the comment slow mode, the admin login lockout)',
      labelNames: ['method', 'route', 'code', 'limit'] as const,
      registers: [registry],
    });
    const refusals = new WeakMap<object, RateLimited>();
    app.decorate('metrics', registry);
    app.addHook('onError', (request, _reply, error, done) => {
      if (error instanceof ApiRateLimitExceeded)
        refusals.set(request, { code: error.code, limit: error.counters });
      else if (error instanceof HttpProblem) refusals.set(request, { code: error.code, limit: 'route' });
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      requests.inc(labels);
      latency.observe(labels, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) {
        const refusal = refusals.get(request) ?? { code: 'rate_limited', limit: 'route' };
        rateLimited.inc({ method: labels.method, route: labels.route, ...refusal });
      }
      done();
    });
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      const text = await (options.exposition ?? (() => registry.metrics()))();
      return reply.type(registry.contentType).send(text);
    });
  },
  { name: 'metrics' },
);
