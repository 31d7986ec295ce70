import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../../lib/domain-error.ts';
import { blockText, lineText } from '../../../lib/text-rules.ts';
import { findNotice, listNotices, type Notice, noticeSourceId, sendNotice } from '../../../push/notices.ts';
import { encodeInstantIdCursor, instantIdCursor, limitParam } from '../../cursor.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { problemSchema } from '../../problem.ts';
import { pushProgress } from '../../../push/push-log.ts';
import { pushProgressSchema } from '../../views/admin/pushes.ts';
import { adminErrors, adminSecurity, idParams, userIdSchema } from './conventions.ts';

const tags = ['admin: notices'];
const security = adminSecurity;
/** A notice to more users than this is one to everyone (omit `userIds`). */
const MAX_RECIPIENTS = 10_000;

const noticeBody = z
  .strictObject({
    userIds: z
      .array(userIdSchema)
      .min(1)
      .max(MAX_RECIPIENTS)
      .refine((ids) => new Set(ids).size === ids.length, 'lists a user twice')
      .optional()
      .describe('the users to reach; absent: every user with a device'),
    title: lineText({ max: 100 }),
    body: blockText({ max: 1000 }),
  })
  .meta({ id: 'NoticeSending' });

const noticeSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    body: z.string(),
    userIds: z.array(z.string()).nullable().describe('null: every user with a device'),
    sentBy: z.string(),
    createdAt: z.iso.datetime(),
    push: pushProgressSchema,
  })
  .meta({ id: 'Notice' });

/** `POST /admin/notices` (API.md) and the notices' progress. */
export const noticesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, push } = app.services;
  const view = async (notice: Notice) => ({
    id: notice.id,
    title: notice.title,
    body: notice.body,
    userIds: notice.userIds === null ? null : [...notice.userIds],
    sentBy: notice.adminId,
    createdAt: notice.createdAt.toISOString(),
    push: await pushProgress(pool, noticeSourceId(notice.id)),
  });

  app.post(
    '/notices',
    {
      config: {
        access: 'notices.send',
        idempotent: true,
        audit: { action: 'notices.send', target: 'notice' },
      },
      schema: {
        operationId: 'adminSendNotice',
        tags,
        security,
        summary: 'Sends a system notice as a push to some users, or to every user with a device',
        description:
          'Category `system`: users who turned system notices off get nothing. Answers at once; the ' +
          "notice's `push` shows how far delivery has got.",
        headers: z.object({ 'idempotency-key': z.string().optional() }),
        body: noticeBody,
        response: { 202: noticeSchema, 400: problemSchema, 409: problemSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const { userIds, title, body } = request.body;
      const id = randomUUID();
      request.audit.targetId = id;
      request.audit.detail = { recipients: userIds?.length ?? 'everyone' };
      const notice = await sendNotice(
        { pool, broadcaster: push.broadcaster },
        { id, title, body, userIds: userIds ?? null, adminId: adminOf(request).id },
      );
      return reply.code(202).send(await view(notice));
    },
  );

  app.get(
    '/notices',
    {
      config: { access: 'notices.read' },
      schema: {
        operationId: 'adminListNotices',
        tags,
        security,
        summary: 'The notices sent, newest first, each with its delivery progress',
        querystring: z.object({ limit: limitParam, cursor: instantIdCursor().optional() }),
        response: {
          200: z
            .object({ items: z.array(noticeSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'NoticeList' }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      // One row more than asked tells whether a next page exists, so the last page says null.
      const rows = await listNotices(pool, { limit: limit + 1, before: cursor ?? null });
      const notices = rows.slice(0, limit);
      const last = notices.at(-1);
      return {
        items: await Promise.all(notices.map(view)),
        nextCursor: rows.length > limit && last ? encodeInstantIdCursor(last.createdAt, last.id) : null,
      };
    },
  );

  app.get(
    '/notices/:id',
    {
      config: { access: 'notices.read' },
      schema: {
        operationId: 'adminGetNotice',
        tags,
        security,
        summary: 'One notice and how far its delivery has got',
        params: idParams,
        response: { 200: noticeSchema, 404: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const notice = await findNotice(pool, request.params.id);
      if (!notice) throw notFound('No such notice.');
      return view(notice);
    },
  );
};
