import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/** One stream per channel post: `channelPost-<postId>`. */
export const POSTS_CATEGORY = 'channelPost';
export const postStream = (postId: string): string => streamName(POSTS_CATEGORY, postId);
export const postOfStream = (stream: string): string => stream.slice(POSTS_CATEGORY.length + 1);

export const MAX_POST_TEXT = 4096;
export const MAX_BUTTONS = 8;

export const postStatusSchema = z.enum(['draft', 'scheduled', 'published', 'hidden', 'deleted']);
export type PostStatus = z.infer<typeof postStatusSchema>;

const instant = z.iso.datetime();
export const buttonSchema = z.object({
  id: z.uuid(),
  label: z.string().min(1).max(40),
  url: z.url({ protocol: /^https$/ }),
});
export type PostButton = z.infer<typeof buttonSchema>;

export const attachmentSchema = z.object({
  id: z.uuid(),
  kind: z.enum(['image', 'video', 'file']),
  storageKey: z.string().min(1),
  contentType: z.string(),
  size: z.number().int().positive(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  durationMs: z.number().int().positive().optional(),
});
export type PostAttachment = z.infer<typeof attachmentSchema>;

const content = {
  text: z.string().max(MAX_POST_TEXT),
  buttons: z.array(buttonSchema).max(MAX_BUTTONS),
  commentsEnabled: z.boolean(),
};

export const postDrafted = z.object({
  type: z.literal('postDrafted'),
  data: z.object({ channelId: z.uuid(), ...content, at: instant }),
});
export const postEdited = z.object({
  type: z.literal('postEdited'),
  // Only what changed; `at` is the post's editedAt when it is live.
  data: z.object({
    text: content.text.optional(),
    buttons: content.buttons.optional(),
    commentsEnabled: content.commentsEnabled.optional(),
    at: instant,
  }),
});
export const postAttachmentAdded = z.object({
  type: z.literal('postAttachmentAdded'),
  data: z.object({ attachment: attachmentSchema, at: instant }),
});
export const postAttachmentRemoved = z.object({
  type: z.literal('postAttachmentRemoved'),
  data: z.object({ attachmentId: z.uuid(), at: instant }),
});
export const postScheduled = z.object({
  type: z.literal('postScheduled'),
  data: z.object({ publishAt: instant, notify: z.boolean(), at: instant }),
});
export const postUnscheduled = z.object({
  type: z.literal('postUnscheduled'),
  data: z.object({ at: instant }),
});
export const postPublished = z.object({
  type: z.literal('postPublished'),
  // What the push reaction needs, so it never has to read the post back: where, whether, what.
  data: z.object({
    channelId: z.uuid(),
    notify: z.boolean(),
    preview: z.string().max(200),
    by: z.enum(['admin', 'schedule']),
    at: instant,
  }),
});
export const postHidden = z.object({ type: z.literal('postHidden'), data: z.object({ at: instant }) });
export const postUnhidden = z.object({ type: z.literal('postUnhidden'), data: z.object({ at: instant }) });
export const postDeleted = z.object({ type: z.literal('postDeleted'), data: z.object({ at: instant }) });

export const postEventSchema = z.discriminatedUnion('type', [
  postDrafted,
  postEdited,
  postAttachmentAdded,
  postAttachmentRemoved,
  postScheduled,
  postUnscheduled,
  postPublished,
  postHidden,
  postUnhidden,
  postDeleted,
]);
export type PostEvent = z.infer<typeof postEventSchema> & DomainEvent;

export const postCodec: EventCodec<PostEvent> = {
  parse: (recorded: RecordedEvent) => postEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
