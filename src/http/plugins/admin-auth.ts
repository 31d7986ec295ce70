import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminIdentity, AdminSessions } from '../../auth/admin-sessions.ts';
import { type Permission, roleHas } from '../../auth/permissions.ts';
import { HttpProblem, unauthenticated } from '../problem.ts';

/** What an admin route needs: a permission, any signed-in admin, or nothing at all (login). */
export type RouteAccess = Permission | 'signed-in' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Declared by every /admin route (the app refuses to start otherwise). */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The signed-in admin, or null when the request carried no valid admin session token. */
    admin: AdminIdentity | null;
  }
}

const bearer = /^Bearer ([^\s]+)$/;

/** onRequest: resolves the admin from the token, if one is there and still good; never rejects. */
export function identifyAdmin(sessions: AdminSessions): (request: FastifyRequest) => Promise<void> {
  return async (request: FastifyRequest) => {
    const token = bearer.exec(request.headers.authorization ?? '')?.[1];
    request.admin = token === undefined ? null : await sessions.authenticate(token);
  };
}

/** preParsing: 401 without a session, 403 without the permission, before any body is read. */
export function authorize(access: RouteAccess): (request: FastifyRequest) => Promise<void> {
  return (request) => {
    if (access === 'public') return Promise.resolve();
    const admin = request.admin;
    if (admin === null) return Promise.reject(unauthenticated());
    if (access !== 'signed-in' && !roleHas(admin.role, access)) {
      return Promise.reject(new HttpProblem(403, 'forbidden', `This needs the ${access} permission.`));
    }
    return Promise.resolve();
  };
}

/** The admin of a request that passed `authorize`. */
export function adminOf(request: FastifyRequest): AdminIdentity {
  if (request.admin === null) throw unauthenticated();
  return request.admin;
}

/** Adds the access check to every route of this scope, and refuses a route that declares none. */
export function requireDeclaredAccess(app: FastifyInstance): void {
  app.decorateRequest('admin', null);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access === undefined) {
      throw new Error(`admin route ${String(route.method)} ${route.url} declares no access`);
    }
    const before = route.preParsing === undefined ? [] : [route.preParsing].flat();
    route.preParsing = [...before, authorize(access)];
  });
}
