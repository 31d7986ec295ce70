import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditOutcomes, listAdminLogs } from '../../../auth/admin-logs.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { problemSchema } from '../../problem.ts';
import { adminErrors, adminSecurity } from './conventions.ts';
import { idText } from '../../../lib/text-rules.ts';

const entrySchema = z
  .object({
    id: z.string(),
    at: z.iso.datetime(),
    adminId: z.string().nullable(),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string() }).nullable(),
    clientIp: z.string(),
    outcome: z.enum(auditOutcomes),
    statusCode: z.number().int(),
    correlationId: z.string(),
    detail: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });

const query = z
  .object({
    adminId: z.uuid().optional(),
    action: idText({ max: 100 }).optional(),
    targetId: idText({ max: 200 }).optional(),
    outcome: z.enum(auditOutcomes).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    limit: limitParam,
    cursor: cursorParam(z.string().regex(/^\d{1,19}$/)).optional(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), {
    message: 'from must not be after to',
    path: ['from'],
  });

export const auditLogRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;
  app.get(
    '/audit-log',
    {
      config: { access: 'audit.read' },
      schema: {
        operationId: 'adminListAuditLog',
        tags: ['admin: audit'],
        security: adminSecurity,
        summary: 'The audit log, newest first: mutating admin requests and logins, whatever their outcome',
        description: '`from` is inclusive, `to` exclusive.',
        querystring: query,
        response: {
          200: z
            .object({ items: z.array(entrySchema), nextCursor: z.string().nullable() })
            .meta({ id: 'AuditLog' }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { limit, cursor, from, to, ...filter } = request.query;
      const page = await listAdminLogs(
        pool,
        {
          ...filter,
          ...(from ? { from: new Date(from) } : {}),
          ...(to ? { to: new Date(to) } : {}),
        },
        limit,
        cursor ?? null,
      );
      return {
        items: page.items.map((row) => ({
          id: row.id,
          at: row.at.toISOString(),
          adminId: row.admin_id,
          action: row.action,
          target: row.target_type === null ? null : { type: row.target_type, id: row.target_id ?? '' },
          clientIp: row.client_ip,
          outcome: row.outcome,
          statusCode: row.status_code,
          correlationId: row.correlation_id,
          detail: row.detail,
        })),
        nextCursor: page.before === null ? null : encodeCursor(page.before),
      };
    },
  );
};
