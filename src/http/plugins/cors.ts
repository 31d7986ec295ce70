import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const localhostOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/**
 * Exact origins from CORS_ORIGINS. With none configured outside production, any localhost origin
 * (a developer's SDK playground). The `null` origin (sandboxed frames, file://) is never allowed.
 */
export function originAllowed(origin: string, allowed: readonly string[], production: boolean): boolean {
  if (origin === 'null') return false;
  if (allowed.length > 0) return allowed.includes(origin);
  return !production && localhostOrigin.test(origin);
}

export const corsPlugin = fp(
  async (app: FastifyInstance, options: { origins: readonly string[]; production: boolean }) => {
    await app.register(cors, {
      origin: (origin, callback) => {
        // No Origin header: not a browser cross-origin request, CORS does not apply.
        if (origin === undefined) {
          callback(null, false);
          return;
        }
        callback(null, originAllowed(origin, options.origins, options.production));
      },
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id'],
      exposedHeaders: ['ETag', 'Retry-After', 'X-Poll-Interval', 'X-Request-Id', 'Location'],
      maxAge: 600,
    });
  },
  { name: 'cors' },
);
