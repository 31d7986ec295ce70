import jwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unauthenticated } from '../problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified session identity, or null when the request carried no valid session JWT. */
    userId: string | null;
  }
}

const MAX_IDENTITY_LENGTH = 256;

// Runs on every request, and a missing `userId` is the common case: a plain check, not a schema parse
// that would build an error object each time.
const isIdentity = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_IDENTITY_LENGTH;

/** `userId` when it is a non-empty string, else `sub`; null when neither is. */
export function identityOf(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const claims = payload as Record<string, unknown>;
  if (isIdentity(claims.userId)) return claims.userId;
  return isIdentity(claims.sub) ? claims.sub : null;
}

export interface ClientAuthOptions {
  readonly secret: string;
  readonly requireExp: boolean;
}

// A few seconds of tolerance for clock skew between the host backend that mints tokens and us.
const CLOCK_TOLERANCE_MS = 5_000;

/**
 * Client session JWTs: HS256 only, signed with JWT_SECRET by the host backend. Registers
 * `request.userId` (set by `identify`) and `requireUser`, which answers 401 with no hint of which
 * check failed.
 */
export const clientAuthPlugin = fp(
  async (app: FastifyInstance, options: ClientAuthOptions) => {
    await app.register(jwt, {
      secret: options.secret,
      sign: { algorithm: 'HS256' },
      verify: {
        algorithms: ['HS256'],
        clockTolerance: CLOCK_TOLERANCE_MS,
        // SDKs poll every few seconds with the same token: remember verified tokens (never past their
        // exp) instead of recomputing the HMAC each time.
        cache: 10_000,
        ...(options.requireExp ? { requiredClaims: ['exp'] } : {}),
      },
    });
    app.decorateRequest('userId', null);
  },
  { name: 'client-auth' },
);

/** onRequest hook: resolves the identity if a valid token is present; never rejects by itself. */
export async function identify(request: FastifyRequest): Promise<void> {
  const header = request.headers.authorization;
  if (header === undefined || !/^Bearer [^\s]+$/.test(header)) return;
  try {
    request.userId = identityOf(await request.jwtVerify());
  } catch {
    request.userId = null;
  }
}

/** Rejects requests without a verified identity. */
export function requireUser(request: FastifyRequest): Promise<void> {
  if (request.userId === null) return Promise.reject(unauthenticated());
  return Promise.resolve();
}

/** The identity of a request that passed requireUser. */
export function userOf(request: FastifyRequest): string {
  if (request.userId === null) throw unauthenticated();
  return request.userId;
}
