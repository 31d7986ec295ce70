import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { leasedStore, storeClass } from '../../integrations/rate-limiters/leased-counts.ts';
import { HttpProblem } from '../problem.ts';

/**
 * The refusal of the per-user API limit or of the per-IP file-link limit (`counters`), told apart from a
 * route's own 429 in `http_rate_limited_total`.
 */
export class ApiRateLimitExceeded extends HttpProblem {
  readonly counters: 'api' | 'files';
  constructor(counters: 'api' | 'files', retryAfterSeconds: number, after: string) {
    super(429, 'rate_limited', `Too many requests; retry after ${after}.`, {
      'retry-after': String(retryAfterSeconds),
    });
    this.counters = counters;
  }
}

export interface ApiRateLimitOptions {
  readonly perMinute: number;
  readonly redis?: Redis | undefined;
  /** Which counters: the client API's (`api`, the default) or the public file links' (`files`). */
  readonly counters?: 'api' | 'files';
}

/**
 * Per-user limit on /api/* (per client IP before a user is known), and per client IP on the public file
 * links (`/files/*`), which take no session. Counters live in Redis when it is configured, so every
 * replica shares them (leased a block at a time), in memory otherwise. Counts at preParsing: after
 * identity is known, before a body is read. The count is a preParsing hook of `app` itself, not one the
 * plugin adds to each route, so hooks of one kind keep the order they were added in: a preParsing hook
 * the caller adds after this call runs after the count.
 */
export async function registerApiRateLimit(
  app: FastifyInstance,
  options: ApiRateLimitOptions,
): Promise<void> {
  // The hook comes from the plugin's `rateLimit` decorator: one inherited from a parent scope would count
  // on the parent's counters.
  if (app.hasDecorator('rateLimit')) {
    throw new Error('a rate limit is already registered in this scope or a parent');
  }
  const nameSpace = `rl:${options.counters ?? 'api'}:`;
  await app.register(rateLimit, {
    global: false,
    // A Redis outage must not take the API down with it: fail open (the Redis client logs the outage).
    skipOnError: true,
    // For a route with a `config.rateLimit` of its own; every other route counts in the hook added below.
    hook: 'preParsing',
    max: options.perMinute,
    timeWindow: 60_000,
    nameSpace,
    // Shared through Redis in leased blocks, not a round trip per request (leased-counts.ts).
    ...(options.redis ? { store: storeClass(leasedStore(options.redis, { prefix: nameSpace })) } : {}),
    keyGenerator: (request) =>
      request.userId === null ? `ip:${request.clientIp}` : `user:${request.userId}`,
    // Only a refusal says how the limit stands (429 with Retry-After and the X-RateLimit-* headers). On
    // every other answer the three headers cost each poll about 4 % of its throughput and the client bytes,
    // and clients pace themselves by X-Poll-Interval instead (decision 004).
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    errorResponseBuilder: (_request, context) =>
      new ApiRateLimitExceeded(
        options.counters ?? 'api',
        Math.max(1, Math.ceil(context.ttl / 1000)),
        context.after,
      ),
  });
  app.addHook('preParsing', app.rateLimit());
}
