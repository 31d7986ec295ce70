import { z } from 'zod';
import { complaintStatusSchema } from '../../../events/complaints.ts';
import type { ComplaintDetail, ComplaintSummary } from '../../../queries/complaints.ts';

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

export const adminComplaintSchema = z
  .object({
    id: z.uuid(),
    userId: z.string().nullable().describe('null once the user was erased'),
    reason: z.object({ id: z.uuid(), title: z.string().describe('as it was when the complaint was filed') }),
    status: complaintStatusSchema,
    conversationId: z.string().optional(),
    ticketId: z.string().optional(),
    createdAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().optional(),
  })
  .meta({ id: 'AdminComplaint' });

export const adminComplaintDetailSchema = adminComplaintSchema
  .extend({
    text: z.string().nullable().describe('null once the user was erased (their attachments go too)'),
    attachments: z.array(
      z.object({
        id: z.uuid(),
        name: z.string().nullable(),
        contentType: z.string(),
        size: z.number().int(),
        url: z.string().describe('a short-lived signed link (`/files/:id?t=`)'),
      }),
    ),
    resolvedBy: z.string().optional().describe('the id of the admin who resolved it'),
    note: z.string().optional().describe("the resolving admin's note"),
  })
  .meta({ id: 'AdminComplaintDetail' });

/** A complaint as the panel's list shows it: no text, so a page of them stays small. */
export const adminComplaintView = (c: ComplaintSummary): z.infer<typeof adminComplaintSchema> => ({
  id: c.id,
  userId: c.userId,
  reason: c.reason,
  status: c.status,
  ...optional('conversationId', c.conversationId),
  ...optional('ticketId', c.ticketId),
  createdAt: c.createdAt,
  ...optional('resolvedAt', c.resolvedAt),
});

/** One complaint whole; `link` signs each attachment's download. */
export const adminComplaintDetailView = (
  c: ComplaintDetail,
  link: (file: { readonly id: string; readonly storageKey: string }) => string,
): z.infer<typeof adminComplaintDetailSchema> => ({
  ...adminComplaintView(c),
  text: c.text,
  attachments: c.attachments.map((a) => ({
    id: a.id,
    name: a.name,
    contentType: a.contentType,
    size: a.size,
    url: link(a),
  })),
  ...optional('resolvedBy', c.resolvedBy),
  ...optional('note', c.note),
});
