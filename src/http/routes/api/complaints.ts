import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conversationFor } from '../../../chat/conversations.ts';
import { ownedTicket } from '../../../chat/tickets.ts';
import { activeReasons } from '../../../chat/reasons.ts';
import { submitComplaint } from '../../../commands/complaints.ts';
import type { ComplaintAttachment } from '../../../events/complaints.ts';
import { findFile } from '../../../files/file-records.ts';
import { forbidden, notFound } from '../../../lib/domain-error.ts';
import { blockText } from '../../../lib/text-rules.ts';
import { complaintsOf } from '../../../queries/complaints.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { replyToPoll } from '../../poll.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';
import type { HttpServices } from '../../services.ts';
import { myComplaintSchema, myComplaintView } from '../../views/api/complaints.ts';
import {
  idempotencyKeyHeader,
  notModified,
  pollHeaders,
  sessionSecurity as security,
} from './conventions.ts';
import { providerId } from './support-schemas.ts';

const tags = ['complaints'];
const COMPLAINT_PROJECTIONS = ['complaints'];
/** As many files as a chat message takes. */
const MAX_ATTACHMENTS = 10;

const newComplaint = z
  .strictObject({
    reasonId: z.uuid().describe('an active reason of kind `complaint` (GET /api/config)'),
    text: blockText({ max: 5000 }),
    conversationId: providerId.optional().describe("one of the caller's own conversations"),
    ticketId: providerId.optional().describe("one of the caller's own tickets"),
    attachmentIds: z
      .array(z.uuid())
      .max(MAX_ATTACHMENTS)
      .optional()
      .describe("the caller's own uploads (POST /api/files/upload)"),
  })
  .meta({ id: 'ComplaintSubmission' });
type NewComplaint = z.infer<typeof newComplaint>;

const errors = {
  400: problemSchema,
  401: problemSchema,
  403: problemSchema,
  404: problemSchema,
  409: problemSchema,
  422: problemSchema,
  429: problemSchema,
  503: problemSchema,
};

/** The reason as the complaint records it; any other id (a support reason, an inactive or unknown one) is 400. */
async function complaintReason(services: HttpServices, reasonId: string) {
  const reason = (await activeReasons(services.pool)).complaint.find((r) => r.id === reasonId);
  if (reason) return reason;
  throw new HttpProblem(400, 'validation_failed', 'The reason is not an active complaint reason.', {}, [
    { path: 'body.reasonId', message: 'is not an active complaint reason' },
  ]);
}

/**
 * The targets must be the caller's own, checked through the support read cache as the chat routes check
 * them: 404 when Intercom has no such record, 403 when it is someone else's. A ticket is looked at, not
 * opened, so its unread badge stays as it is.
 */
async function checkTargets(services: HttpServices, userId: string, body: NewComplaint): Promise<void> {
  const { chat } = services;
  if (body.conversationId !== undefined) await conversationFor(chat, userId, body.conversationId);
  if (body.ticketId !== undefined) await ownedTicket(chat, userId, body.ticketId);
}

/** The caller's own uploads, as the complaint records them, each once and in the order given. */
async function ownAttachments(
  services: HttpServices,
  userId: string,
  ids: readonly string[],
): Promise<ComplaintAttachment[]> {
  const attachments: ComplaintAttachment[] = [];
  for (const id of new Set(ids)) {
    const file = await findFile(services.pool, id);
    if (!file) throw notFound('Attachment not found');
    if (file.ownerId !== userId) throw forbidden('This attachment belongs to another user');
    const { storageKey, name, contentType, size } = file;
    attachments.push({ fileId: file.id, storageKey, name, contentType, size });
  }
  return attachments;
}

/** API.md "CSAT, complaints, config": a user files complaints and follows them. */
export const complaintsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;
  const { pool, store, waiter, config } = services;

  app.post(
    '/complaints',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'submitComplaint',
        tags,
        security,
        summary: 'Files a complaint, optionally about one of the caller’s conversations or tickets',
        description:
          'The text is kept by the service, never sent to the support provider; the provider gets a note ' +
          "naming the reason on the user's contact, a moment later and only when the user has one.",
        headers: idempotencyKeyHeader,
        body: newComplaint,
        response: {
          201: z.object({ id: z.uuid(), createdAt: z.iso.datetime() }).meta({ id: 'ComplaintFiled' }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const { body } = request;
      // Cheapest first: the reason and the files are read here, the targets may need Intercom.
      const reason = await complaintReason(services, body.reasonId);
      const attachments = await ownAttachments(services, userId, body.attachmentIds ?? []);
      await checkTargets(services, userId, body);
      const at = new Date().toISOString();
      const { complaintId, position } = await submitComplaint(
        store,
        {
          type: 'submit',
          userId,
          reason,
          text: body.text,
          ...(body.conversationId === undefined ? {} : { conversationId: body.conversationId }),
          ...(body.ticketId === undefined ? {} : { ticketId: body.ticketId }),
          attachments,
          at,
        },
        userCommandContext(request),
      );
      await waiter.waitFor(COMPLAINT_PROJECTIONS, position);
      return reply.code(201).send({ id: complaintId, createdAt: at });
    },
  );

  app.get(
    '/complaints',
    {
      schema: {
        operationId: 'listComplaints',
        tags,
        security,
        summary: "Poll: the caller's own complaints, newest first (the latest 100)",
        headers: pollHeaders,
        response: {
          200: z.object({ items: z.array(myComplaintSchema) }).meta({ id: 'MyComplaints' }),
          304: notModified,
          400: problemSchema,
          401: problemSchema,
          429: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const items = (await complaintsOf(pool, userOf(request))).map(myComplaintView);
      return replyToPoll(request, reply, { items }, config.POLL_CHAT_MS);
    },
  );
};
