import { z } from 'zod';

// The parts of Intercom's 2.15 responses the app reads (api.intercom.io-2.15.yaml). Objects are loose:
// fields Intercom adds or we do not use pass through untouched, while the fields we rely on are checked.

const unixSeconds = z.number().int();
const nextCursor = z
  .looseObject({ starting_after: z.string().nullish() })
  .nullish()
  .transform((next) => next?.starting_after ?? null);
/** What every search answer carries besides its items; `pages.next` is null on the last page. */
const listFields = {
  total_count: z.number().int().optional(),
  pages: z
    .looseObject({ next: nextCursor })
    .nullish()
    .transform((p) => ({ next: p?.next ?? null })),
};

export const adminSchema = z.looseObject({
  type: z.literal('admin'),
  id: z.string(),
  name: z.string().nullish(),
  /** The workspace; `id_code` equals `app_id` in webhooks. */
  app: z.looseObject({ id_code: z.string() }),
});
export type Admin = z.infer<typeof adminSchema>;

export const contactSchema = z.looseObject({
  type: z.literal('contact'),
  id: z.string(),
  external_id: z.string().nullish(),
  role: z.string().optional(),
});
export type Contact = z.infer<typeof contactSchema>;

export const contactListSchema = z.looseObject({
  type: z.literal('list'),
  data: z.array(contactSchema),
  ...listFields,
});

export const unarchivedContactSchema = z.looseObject({
  id: z.string(),
  external_id: z.string().nullish(),
  archived: z.boolean().optional(),
});
export type UnarchivedContact = z.infer<typeof unarchivedContactSchema>;

/** What `DELETE /contacts/{id}` answers (`contact_deleted`); anything but `deleted: true` is no deletion. */
export const deletedContactSchema = z.looseObject({
  id: z.string(),
  external_id: z.string().nullish(),
  deleted: z.literal(true),
});

export const attachmentSchema = z.looseObject({
  name: z.string(),
  url: z.string(),
  content_type: z.string(),
  filesize: z.number().int().nullish(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

export const authorSchema = z.looseObject({
  /** admin, user, bot, lead, team, ... */
  type: z.string(),
  id: z.string(),
  name: z.string().nullish(),
});

export const conversationPartSchema = z.looseObject({
  id: z.string(),
  part_type: z.string(),
  /** HTML, or null for parts that are not messages (assignments, state changes). */
  body: z.string().nullable(),
  created_at: unixSeconds,
  author: authorSchema,
  attachments: z.array(attachmentSchema).default([]),
});
export type ConversationPart = z.infer<typeof conversationPartSchema>;

/** The conversation's first message. */
export const conversationSourceSchema = z.looseObject({
  id: z.string(),
  body: z.string().nullish(),
  author: authorSchema,
  attachments: z.array(attachmentSchema).default([]),
});

/** The contacts a conversation or ticket belongs to: what ownership is checked against. */
const contactRefs = z
  .looseObject({ contacts: z.array(z.looseObject({ id: z.string() })) })
  .nullish()
  .transform((refs) => refs?.contacts.map((c) => c.id) ?? []);

const conversationFields = {
  id: z.string(),
  contacts: contactRefs,
  created_at: unixSeconds,
  updated_at: unixSeconds,
  /** Use `state`: a snoozed conversation also has `open: true`. */
  state: z.enum(['open', 'closed', 'snoozed']),
  open: z.boolean(),
  read: z.boolean(),
};

export const conversationSchema = z.looseObject({
  type: z.literal('conversation'),
  ...conversationFields,
  source: conversationSourceSchema,
  /** At most the 500 newest parts. */
  conversation_parts: z.looseObject({ conversation_parts: z.array(conversationPartSchema) }),
});
export type Conversation = z.infer<typeof conversationSchema>;

/** A search hit: the conversation without its parts. */
export const conversationListItemSchema = z.looseObject({
  ...conversationFields,
  source: conversationSourceSchema.optional(),
});
export type ConversationListItem = z.infer<typeof conversationListItemSchema>;

export const conversationListSchema = z.looseObject({
  type: z.literal('conversation.list'),
  conversations: z.array(conversationListItemSchema),
  ...listFields,
});

/** What `POST /conversations` answers: a message whose `conversation_id` is the new conversation. */
export const createdMessageSchema = z.looseObject({
  id: z.string(),
  conversation_id: z.string(),
  created_at: unixSeconds.optional(),
});
export type CreatedMessage = z.infer<typeof createdMessageSchema>;

export const ticketCategorySchema = z.enum(['submitted', 'in_progress', 'waiting_on_customer', 'resolved']);

export const ticketPartSchema = z.looseObject({
  id: z.string(),
  part_type: z.string(),
  body: z.string().nullish(),
  created_at: unixSeconds,
  author: authorSchema.partial({ id: true }).optional(),
  ticket_state: ticketCategorySchema.optional(),
  attachments: z.array(attachmentSchema).default([]),
});

export const ticketSchema = z.looseObject({
  type: z.literal('ticket'),
  id: z.string(),
  ticket_id: z.string().optional(),
  /** Show `external_label` to the user; `category` is the machine state. */
  ticket_state: z.looseObject({ category: ticketCategorySchema, external_label: z.string() }),
  ticket_attributes: z.record(z.string(), z.unknown()).optional(),
  contacts: contactRefs,
  created_at: unixSeconds,
  updated_at: unixSeconds,
  open: z.boolean().optional(),
  ticket_parts: z.looseObject({ ticket_parts: z.array(ticketPartSchema) }).optional(),
});
export type Ticket = z.infer<typeof ticketSchema>;

export const ticketListSchema = z.looseObject({
  type: z.literal('ticket.list'),
  tickets: z.array(ticketSchema),
  ...listFields,
});

export const tagSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
});
export type Tag = z.infer<typeof tagSchema>;

/** One page of a search, with the cursor of the next one (null on the last). */
export interface Page<T> {
  readonly items: T[];
  readonly startingAfter: string | null;
}
