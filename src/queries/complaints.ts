import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { complaintStatusSchema } from '../events/complaints.ts';
import { isoInstant } from './iso-instant.ts';

/** The most a user's own list holds, newest first: a user files a handful; the cap bounds a flood. */
export const USER_LIST_LIMIT = 100;

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().transform((v) => v ?? undefined);

// Erased (decision 048): a complaint keeps its reason and status, and loses its user, text and files.
const summaryFields = z.object({
  id: z.string(),
  user_id: z.string().nullable(),
  reason_id: z.string(),
  reason_title: z.string(),
  status: complaintStatusSchema,
  conversation_id: nullable(z.string()),
  ticket_id: nullable(z.string()),
  created_at: isoInstant,
  resolved_at: nullable(isoInstant),
});
const toSummary = (r: z.infer<typeof summaryFields>) => ({
  id: r.id,
  userId: r.user_id,
  reason: { id: r.reason_id, title: r.reason_title },
  status: r.status,
  conversationId: r.conversation_id,
  ticketId: r.ticket_id,
  createdAt: r.created_at,
  resolvedAt: r.resolved_at,
});
const summaryRow = summaryFields.transform(toSummary);
export type ComplaintSummary = z.infer<typeof summaryRow>;

const attachmentRow = z
  .object({
    file_id: z.string(),
    storage_key: z.string(),
    name: z.string().nullable(),
    content_type: z.string(),
    size: z.coerce.number(),
  })
  .transform((r) => ({
    id: r.file_id,
    storageKey: r.storage_key,
    name: r.name,
    contentType: r.content_type,
    size: r.size,
  }));
export type ComplaintAttachmentRow = z.infer<typeof attachmentRow>;

const detailRow = summaryFields
  .extend({
    text: z.string().nullable(),
    resolved_by: nullable(z.string()),
    resolution_note: nullable(z.string()),
  })
  .transform((r) => ({ ...toSummary(r), text: r.text, resolvedBy: r.resolved_by, note: r.resolution_note }));

export type ComplaintDetail = z.infer<typeof detailRow> & {
  readonly attachments: readonly ComplaintAttachmentRow[];
};

const summaryColumns = sql.fragment`
  id, user_id, reason_id, reason_title, status, conversation_id, ticket_id, created_at, resolved_at`;

/** The user's own complaints, newest first (at most `USER_LIST_LIMIT`). */
export async function complaintsOf(
  db: CommonQueryMethods,
  userId: string,
): Promise<readonly ComplaintSummary[]> {
  return db.any(sql.type(summaryRow)`
    SELECT ${summaryColumns} FROM complaints WHERE user_id = ${userId}
    ORDER BY created_at DESC, id DESC LIMIT ${USER_LIST_LIMIT}`);
}

export interface ComplaintFilter {
  readonly status?: z.infer<typeof complaintStatusSchema> | undefined;
  /** The keyset of the last complaint of the page before. */
  readonly before?: { readonly createdAt: string; readonly id: string } | undefined;
  readonly limit: number;
}

/** Complaints for the panel, newest first, by status when asked. */
export async function listComplaints(
  db: CommonQueryMethods,
  filter: ComplaintFilter,
): Promise<readonly ComplaintSummary[]> {
  const { status, before, limit } = filter;
  const conditions = [
    status === undefined ? sql.fragment`TRUE` : sql.fragment`status = ${status}`,
    before === undefined
      ? sql.fragment`TRUE`
      : sql.fragment`(created_at, id) < (${before.createdAt}::timestamptz, ${before.id}::uuid)`,
  ];
  return db.any(sql.type(summaryRow)`
    SELECT ${summaryColumns} FROM complaints WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY created_at DESC, id DESC LIMIT ${limit}`);
}

/** One complaint with its text, resolution and attachments; null when there is none with this id. */
export async function findComplaint(db: CommonQueryMethods, id: string): Promise<ComplaintDetail | null> {
  const complaint = await db.maybeOne(sql.type(detailRow)`
    SELECT ${summaryColumns}, text, resolved_by, resolution_note FROM complaints WHERE id = ${id}`);
  if (complaint === null) return null;
  const attachments = await db.any(sql.type(attachmentRow)`
    SELECT file_id, storage_key, name, content_type, size FROM complaint_attachments
    WHERE complaint_id = ${id} ORDER BY position`);
  return { ...complaint, attachments };
}
