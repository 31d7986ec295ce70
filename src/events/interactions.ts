import { z } from 'zod';
import { type RecordedEvent, streamName } from './envelope.ts';

/**
 * What readers do with posts: views, button clicks and read markers. One stream per user and kind,
 * appended without a revision check (these are frequent and need no decision: duplicates are settled by
 * the projections), so readers never contend with each other or with the post's admins.
 */
export const VIEWS_CATEGORY = 'userViews';
export const CLICKS_CATEGORY = 'userClicks';
export const READS_CATEGORY = 'userChannelReads';

export const MAX_VIEWS_PER_EVENT = 100;

const instant = z.iso.datetime();

export const postsViewed = z.object({
  type: z.literal('postsViewed'),
  data: z.object({
    channelId: z.uuid(),
    postIds: z.array(z.uuid()).min(1).max(MAX_VIEWS_PER_EVENT),
    at: instant,
  }),
});
export const buttonClicked = z.object({
  type: z.literal('buttonClicked'),
  data: z.object({ channelId: z.uuid(), postId: z.uuid(), buttonId: z.uuid(), at: instant }),
});
export const channelRead = z.object({
  type: z.literal('channelRead'),
  // The post read up to, and its publishedAt, so the marker can be compared without the post.
  data: z.object({
    channelId: z.uuid(),
    lastReadPostId: z.uuid(),
    lastReadPublishedAt: instant,
    at: instant,
  }),
});

export type PostsViewed = z.infer<typeof postsViewed>;
export type ButtonClicked = z.infer<typeof buttonClicked>;
export type ChannelRead = z.infer<typeof channelRead>;

export const viewsStream = (userId: string) => streamName(VIEWS_CATEGORY, userId);
export const clicksStream = (userId: string) => streamName(CLICKS_CATEGORY, userId);
export const readsStream = (userId: string) => streamName(READS_CATEGORY, userId);

/** The user a reader stream belongs to. */
export const userOfReaderStream = (recorded: Pick<RecordedEvent, 'streamName'>): string =>
  recorded.streamName.slice(recorded.streamName.indexOf('-') + 1);
