import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AdminSessions } from '../../../auth/admin-sessions.ts';
import { verifyAgainstNothing } from '../../../auth/passwords.ts';
import type { DatabasePool } from '../../../db/pool.ts';
import { recordAudit } from '../../plugins/admin-audit.ts';
import { identifyAdmin, requireDeclaredAccess } from '../../plugins/admin-auth.ts';
import { tagAdminReads } from '../../plugins/admin-etags.ts';
import { adminsRoutes } from './admins.ts';
import { analyticsRoutes } from './analytics.ts';
import { auditLogRoutes } from './audit-log.ts';
import { authRoutes } from './auth.ts';
import { channelsRoutes } from './channels.ts';
import { adminCommentsRoutes } from './comments.ts';
import { adminCsatRoutes } from './csat.ts';
import { moderationRoutes } from './moderation.ts';
import { moderationHistoryRoutes } from './moderation-history.ts';
import { noticesRoutes } from './notices.ts';
import { postsRoutes } from './posts.ts';
import { privacyRoutes } from './privacy.ts';
import { reasonsRoutes } from './reasons.ts';
import { adminComplaintsRoutes } from './complaints.ts';

/**
 * What every admin route gets: the admin identified from the session token first (onRequest), its
 * declared access checked before the body is read (preParsing), for a mutating route an audit entry
 * written before the response goes out, and for a read an ETag and 304 (both onSend).
 */
export function installAdminHooks(
  app: FastifyInstance,
  deps: { readonly pool: DatabasePool; readonly sessions: AdminSessions },
): void {
  requireDeclaredAccess(app);
  recordAudit(app, deps.pool);
  tagAdminReads(app);
  app.addHook('onRequest', identifyAdmin(deps.sessions));
}

/**
 * Everything under /admin (decision 012), behind the admin hooks.
 */
export const adminRoutes: FastifyPluginAsync = async (app) => {
  const { pool, admin } = app.services;
  // The dummy hash an unknown email is checked against, made now rather than in the first such login.
  await verifyAgainstNothing('');

  installAdminHooks(app, { pool, sessions: admin.sessions });

  await app.register(authRoutes);
  await app.register(adminsRoutes);
  await app.register(auditLogRoutes);
  await app.register(reasonsRoutes);
  await app.register(channelsRoutes);
  await app.register(adminCommentsRoutes);
  await app.register(moderationRoutes);
  await app.register(moderationHistoryRoutes);
  await app.register(postsRoutes);
  await app.register(noticesRoutes);
  await app.register(adminCsatRoutes);
  await app.register(analyticsRoutes);
  await app.register(adminComplaintsRoutes);
  await app.register(privacyRoutes);
};
