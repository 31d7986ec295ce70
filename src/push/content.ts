import { z } from 'zod';

import { type PushCategory, pushCategories } from '../lib/push-vocabulary.ts';

export { type PushCategory, pushCategories };

/**
 * What a push is about: ids to open, never what was said. A `preview` (the start of the text a push is
 * about) is carried only while PUSH_SHOW_PREVIEW=1; a notice's title and body are the notice itself.
 */
export const pushContentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('chat'), conversationId: z.string(), preview: z.string().optional() }),
  z.object({
    kind: z.literal('ticket'),
    ticketId: z.string(),
    /** A resolved ticket: the client shows the CSAT prompt when it opens from the push. */
    csat: z.boolean(),
    preview: z.string().optional(),
  }),
  z.object({
    kind: z.literal('post'),
    postId: z.string(),
    channelId: z.string(),
    preview: z.string().optional(),
  }),
  z.object({ kind: z.literal('notice'), noticeId: z.string(), title: z.string(), body: z.string() }),
]);
export type PushContent = z.infer<typeof pushContentSchema>;
export type PushKind = PushContent['kind'];

/**
 * The category, and so the setting, of each kind of push (decision 027): a channel post is a notice from
 * the service, so `systemNotices` governs it; the spec's three settings stay the only ones.
 */
export const categoryOf = (content: PushContent): PushCategory => {
  switch (content.kind) {
    case 'chat':
      return 'chat';
    case 'ticket':
      return 'ticket';
    case 'post':
    case 'notice':
      return 'system';
  }
};

/** Chat and ticket pushes wait for a user seen polling: polling delivers what they are about. */
export const deliveredByPolling = (content: PushContent): boolean =>
  content.kind === 'chat' || content.kind === 'ticket';
