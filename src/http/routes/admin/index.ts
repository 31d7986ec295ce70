import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import { type AdminSessions, adminSessions } from '../../../auth/admin-sessions.ts';
import { adminTokens } from '../../../auth/admin-tokens.ts';
import { loginThrottle } from '../../../integrations/rate-limiters/login-throttle.ts';
import { verifyAgainstNothing } from '../../../auth/passwords.ts';
import type { DatabasePool } from '../../../db/pool.ts';
import type { EventStore } from '../../../events/store/port.ts';
import type { UploadCaps } from '../../../files/inspect.ts';
import type { ObjectStorage } from '../../../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../../../projections/progress.ts';
import { recordAudit } from '../../plugins/admin-audit.ts';
import { identifyAdmin, requireDeclaredAccess } from '../../plugins/admin-auth.ts';
import { adminsRoutes } from './admins.ts';
import { auditLogRoutes } from './audit-log.ts';
import { authRoutes } from './auth.ts';
import { channelsRoutes } from './channels.ts';
import { adminCommentsRoutes } from './comments.ts';
import { moderationRoutes } from './moderation.ts';
import { postsRoutes } from './posts.ts';
import { reasonsRoutes } from './reasons.ts';

export interface AdminOptions {
  readonly pool: DatabasePool;
  readonly redis?: Redis | undefined;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  readonly storage: ObjectStorage;
  readonly uploadCaps: UploadCaps;
  readonly sessionSecret: string;
  readonly sessionTtlMinutes: number;
  readonly login: {
    readonly maxFailures: number;
    readonly windowMinutes: number;
    readonly lockMinutes: number;
  };
}

/**
 * What every admin route gets: the admin identified from the session token first (onRequest), its
 * declared access checked before the body is read (preParsing), and, for a mutating route, an audit
 * entry written before the response goes out (onSend).
 */
export function installAdminHooks(
  app: FastifyInstance,
  deps: { readonly pool: DatabasePool; readonly sessions: AdminSessions },
): void {
  requireDeclaredAccess(app);
  recordAudit(app, deps.pool);
  app.addHook('onRequest', identifyAdmin(deps.sessions));
}

/**
 * Everything under /admin (decision 012), behind the admin hooks.
 */
export const adminRoutes: FastifyPluginAsync<AdminOptions> = async (app, options) => {
  const { pool } = options;
  const tokens = adminTokens(options.sessionSecret, options.sessionTtlMinutes);
  const sessions = adminSessions(pool, tokens);
  const throttle = loginThrottle({
    maxFailures: options.login.maxFailures,
    windowSeconds: options.login.windowMinutes * 60,
    lockSeconds: options.login.lockMinutes * 60,
    redis: options.redis,
  });
  // The dummy hash an unknown email is checked against, made now rather than in the first such login.
  await verifyAgainstNothing('');

  installAdminHooks(app, { pool, sessions });

  await app.register(authRoutes, { pool, sessions, tokens, throttle });
  await app.register(adminsRoutes, { pool, sessions });
  await app.register(auditLogRoutes, { pool });
  await app.register(reasonsRoutes, { pool });
  await app.register(channelsRoutes, { pool, store: options.store, waiter: options.waiter });
  await app.register(adminCommentsRoutes, { pool, store: options.store, waiter: options.waiter });
  await app.register(moderationRoutes, { pool, store: options.store, waiter: options.waiter });
  await app.register(postsRoutes, {
    pool,
    store: options.store,
    waiter: options.waiter,
    storage: options.storage,
    uploadCaps: options.uploadCaps,
  });
};
