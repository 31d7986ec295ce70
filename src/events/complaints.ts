import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { erasable } from './personal-data.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/** One stream per complaint: `complaint-<complaintId>`, its whole life (decision 030). */
export const COMPLAINTS_CATEGORY = 'complaint';
export const complaintStream = (complaintId: string): string => streamName(COMPLAINTS_CATEGORY, complaintId);
export const complaintOfStream = (stream: string): string => stream.slice(COMPLAINTS_CATEGORY.length + 1);

export const complaintStatusSchema = z.enum(['open', 'resolved']);
export type ComplaintStatus = z.infer<typeof complaintStatusSchema>;

const instant = z.iso.datetime();

/**
 * The reason as the user picked it. Its title is recorded, not looked up: reasons are renamed and deleted in
 * the panel, and a complaint keeps the words it was filed under (decision 030).
 */
export const complaintReasonSchema = z.object({ id: z.uuid(), title: z.string().min(1) });

/** One of the user's uploads (`files`), as it was when attached; the storage key signs links to it. */
export const complaintAttachmentSchema = z.object({
  fileId: z.uuid(),
  storageKey: z.string().min(1),
  name: erasable(z.string()),
  contentType: z.string(),
  size: z.number().int().positive(),
});
export type ComplaintAttachment = z.infer<typeof complaintAttachmentSchema>;

export const complaintSubmitted = z.object({
  type: z.literal('complaintSubmitted'),
  data: z.object({
    userId: z.string().min(1),
    reason: complaintReasonSchema,
    text: erasable(z.string().min(1)),
    conversationId: z.string().min(1).optional(),
    ticketId: z.string().min(1).optional(),
    attachments: z.array(complaintAttachmentSchema),
    at: instant,
  }),
});
export type ComplaintSubmittedData = z.infer<typeof complaintSubmitted>['data'];

export const complaintResolved = z.object({
  type: z.literal('complaintResolved'),
  data: z.object({ adminId: z.string().min(1), note: z.string().min(1).optional(), at: instant }),
});

export const complaintEventSchema = z.discriminatedUnion('type', [complaintSubmitted, complaintResolved]);
export type ComplaintEvent = z.infer<typeof complaintEventSchema> & DomainEvent;

export const complaintCodec: EventCodec<ComplaintEvent> = {
  parse: (recorded: RecordedEvent) =>
    complaintEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
