import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
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
 * links (`/files/*`), which take no session. Counters live in Redis when it is
 * configured so every replica shares them, in memory otherwise. Runs at preParsing: after identity is
 * known, before a body is read.
 */
export async function registerApiRateLimit(
  app: FastifyInstance,
  options: ApiRateLimitOptions,
): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    // A Redis outage must not take the API down with it: fail open (the Redis client logs the outage).
    skipOnError: true,
    hook: 'preParsing',
    max: options.perMinute,
    timeWindow: 60_000,
    nameSpace: `rl:${options.counters ?? 'api'}:`,
    ...(options.redis ? { redis: options.redis } : {}),
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
}
