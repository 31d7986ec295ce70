import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { resolveComplaint } from '../../../commands/complaints.ts';
import { complaintStatusSchema } from '../../../events/complaints.ts';
import { signedFileUrl } from '../../../files/signed-urls.ts';
import { notFound } from '../../../lib/domain-error.ts';
import { blockText } from '../../../lib/text-rules.ts';
import { findComplaint, listComplaints } from '../../../queries/complaints.ts';
import { adminCommandContext } from '../../command-context.ts';
import { encodeInstantIdCursor, instantIdCursor, limitParam } from '../../cursor.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { problemSchema } from '../../problem.ts';
import {
  adminComplaintDetailSchema,
  adminComplaintDetailView,
  adminComplaintSchema,
  adminComplaintView,
} from '../../views/admin/complaints.ts';
import { adminErrors, adminSecurity as security, idParams } from './conventions.ts';

const tags = ['admin: complaints'];
const COMPLAINT_PROJECTIONS = ['complaints'];

const listQuery = z.object({
  status: complaintStatusSchema.optional().describe('absent: every complaint'),
  cursor: instantIdCursor().optional(),
  limit: limitParam,
});
const resolveBody = z
  .strictObject({
    note: blockText({ max: 2000 }).optional().describe('for the team; the user never sees it'),
  })
  .meta({ id: 'ComplaintResolution' });

/** API.md "Admin API > CSAT and complaints": the complaints, read and resolved by support. */
export const adminComplaintsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter, chat } = app.services;
  const { files } = chat;
  const link = (file: { readonly id: string; readonly storageKey: string }) =>
    signedFileUrl(files.publicBaseUrl(), files.secret, file, files.ttlSeconds);
  const detail = async (id: string) => {
    const complaint = await findComplaint(pool, id);
    if (!complaint) throw notFound('No such complaint.');
    return adminComplaintDetailView(complaint, link);
  };

  app.get(
    '/complaints',
    {
      config: { access: 'complaints.read' },
      schema: {
        operationId: 'adminListComplaints',
        tags,
        security,
        summary: 'The complaints, newest first (every status unless filtered)',
        querystring: listQuery,
        response: {
          200: z
            .object({ items: z.array(adminComplaintSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'AdminComplaintList' }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { status, cursor, limit } = request.query;
      const rows = await listComplaints(pool, {
        status,
        before: cursor === undefined ? undefined : { createdAt: cursor.at, id: cursor.id },
        limit: limit + 1,
      });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items: items.map(adminComplaintView),
        nextCursor: rows.length > limit && last ? encodeInstantIdCursor(last.createdAt, last.id) : null,
      };
    },
  );

  app.get(
    '/complaints/:id',
    {
      config: { access: 'complaints.read' },
      schema: {
        operationId: 'adminGetComplaint',
        tags,
        security,
        summary: 'One complaint: its text, reason, targets, attachments (signed links) and resolution',
        params: idParams,
        response: { 200: adminComplaintDetailSchema, 400: problemSchema, 404: problemSchema, ...adminErrors },
      },
    },
    async (request) => detail(request.params.id),
  );

  app.post(
    '/complaints/:id/resolve',
    {
      config: {
        access: 'complaints.manage',
        idempotent: true,
        audit: { action: 'complaints.resolve', target: 'complaint' },
      },
      schema: {
        operationId: 'adminResolveComplaint',
        tags,
        security,
        summary: 'Resolves an open complaint, with a note for the team (resolved already: 409)',
        params: idParams,
        headers: z.object({ 'idempotency-key': z.string().optional() }),
        body: resolveBody.nullish(),
        response: {
          200: adminComplaintDetailSchema,
          400: problemSchema,
          404: problemSchema,
          409: problemSchema,
          422: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const note = request.body?.note;
      // Whether a note was given, not the note: it is kept with the complaint, which is never pruned.
      request.audit.detail = { withNote: note !== undefined };
      const { position } = await resolveComplaint(
        store,
        request.params.id,
        {
          type: 'resolve',
          adminId: adminOf(request).id,
          ...(note === undefined ? {} : { note }),
          at: new Date().toISOString(),
        },
        adminCommandContext(request),
      );
      await waiter.waitFor(COMPLAINT_PROJECTIONS, position);
      return detail(request.params.id);
    },
  );
};
