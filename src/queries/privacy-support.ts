import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { complaintStatusSchema } from '../events/complaints.ts';
import { isoInstant } from './iso-instant.ts';

// The support side of the export (decision 048): the user's contact, their read markers in the support
// chat, and their complaints. The conversations and tickets themselves are kept by the provider.

const text = z.string().nullable();

const contactRow = z
  .object({ contact_id: z.string(), telemetry_written: z.boolean(), created_at: isoInstant })
  .transform((r) => ({
    contactId: r.contact_id,
    telemetryWritten: r.telemetry_written,
    mappedAt: r.created_at,
  }));

const conversationReadRow = z
  .object({
    conversation_id: z.string(),
    last_read_message_id: text,
    last_read_at: isoInstant,
    updated_at: isoInstant,
  })
  .transform((r) => ({
    conversationId: r.conversation_id,
    lastReadMessageId: r.last_read_message_id,
    lastReadAt: r.last_read_at,
    updatedAt: r.updated_at,
  }));

const ticketReadRow = z
  .object({ ticket_id: z.string(), seen_updated_at: isoInstant })
  .transform((r) => ({ ticketId: r.ticket_id, seenUpdatedAt: r.seen_updated_at }));

const complaintRow = z.object({
  id: z.string(),
  reason_id: z.string(),
  reason_title: z.string(),
  text,
  status: complaintStatusSchema,
  conversation_id: text,
  ticket_id: text,
  created_at: isoInstant,
  resolved_at: isoInstant.nullable(),
});

const attachmentRow = z.object({
  complaint_id: z.string(),
  file_id: z.string(),
  name: text,
  content_type: z.string(),
  size: z.coerce.number(),
});

export type SupportContactHeld = z.infer<typeof contactRow>;
export type ConversationReadHeld = z.infer<typeof conversationReadRow>;
export type TicketReadHeld = z.infer<typeof ticketReadRow>;
export type Complaint = ReturnType<typeof toComplaint>;

const toComplaint = (
  c: z.infer<typeof complaintRow>,
  attachments: readonly z.infer<typeof attachmentRow>[],
) => ({
  id: c.id,
  reason: { id: c.reason_id, title: c.reason_title },
  text: c.text,
  status: c.status,
  conversationId: c.conversation_id,
  ticketId: c.ticket_id,
  attachments: attachments
    .filter((a) => a.complaint_id === c.id)
    .map((a) => ({ fileId: a.file_id, name: a.name, contentType: a.content_type, size: a.size })),
  createdAt: c.created_at,
  resolvedAt: c.resolved_at,
});

/** The user's Intercom contact, once the support chat made or found one. */
export const supportContactOf = (db: CommonQueryMethods, userId: string) =>
  db.maybeOne(sql.type(contactRow)`
    SELECT contact_id, telemetry_digest IS NOT NULL AS telemetry_written, created_at
    FROM user_contacts WHERE user_id = ${userId}`);

export const conversationReadsOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(conversationReadRow)`
    SELECT conversation_id, last_read_message_id, last_read_at, updated_at FROM conversation_reads
    WHERE user_id = ${userId} ORDER BY conversation_id`);

export const ticketReadsOf = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(ticketReadRow)`
    SELECT ticket_id, seen_updated_at FROM ticket_reads WHERE user_id = ${userId} ORDER BY ticket_id`);

/** The user's complaints with their attachments: two queries, joined here. */
export async function complaintsOf(db: CommonQueryMethods, userId: string): Promise<readonly Complaint[]> {
  const complaints = await db.any(sql.type(complaintRow)`
    SELECT id, reason_id, reason_title, text, status, conversation_id, ticket_id, created_at, resolved_at
    FROM complaints WHERE user_id = ${userId} ORDER BY created_at, id`);
  const attachments = await db.any(sql.type(attachmentRow)`
    SELECT a.complaint_id, a.file_id, a.name, a.content_type, a.size
    FROM complaint_attachments a JOIN complaints c ON c.id = a.complaint_id
    WHERE c.user_id = ${userId} ORDER BY a.complaint_id, a.position`);
  return complaints.map((c) => toComplaint(c, attachments));
}
