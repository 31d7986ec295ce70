import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ClientSessions, clientSessions } from '../../auth/client-sessions.ts';
import { unauthenticated } from '../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    clientSessions: ClientSessions;
  }
  interface FastifyRequest {
    /** The verified session identity, or null when the request carried no valid session JWT. */
    userId: string | null;
  }
}

export interface ClientAuthOptions {
  readonly secret: string;
  readonly requireExp: boolean;
}

/**
 * Client session JWTs, signed with JWT_SECRET by the host backend (src/auth/client-sessions.ts). Registers
 * `request.userId` (set by `identify`) and `requireUser`, which answers 401 with no hint of which check
 * failed.
 */
export const clientAuthPlugin = fp(
  (app: FastifyInstance, options: ClientAuthOptions, done: () => void) => {
    app.decorate('clientSessions', clientSessions(options));
    app.decorateRequest('userId', null);
    done();
  },
  { name: 'client-auth' },
);

const bearer = /^Bearer ([^\s]+)$/;

/** onRequest hook: resolves the identity if a valid token is present; never rejects by itself. */
export function identify(this: FastifyInstance, request: FastifyRequest, _reply: unknown, done: () => void) {
  const token = bearer.exec(request.headers.authorization ?? '')?.[1];
  request.userId = token === undefined ? null : this.clientSessions.identify(token);
  done();
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
