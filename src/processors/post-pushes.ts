import { postCodec, POSTS_CATEGORY, postOfStream } from '../events/posts.ts';
import type { Processor } from './processor.ts';

/** What a post push asks of delivery (the push queue's broadcaster, filled in by the wiring). */
export type BroadcastPort = (
  sourceId: string,
  content: {
    readonly kind: 'post';
    readonly postId: string;
    readonly channelId: string;
    readonly preview?: string;
  },
  userIds: null,
) => Promise<void>;

/**
 * A post published with `notify`, by an admin or by the schedule job, is pushed to every user with a
 * device (decision 027: `systemNotices` governs it). The source id is the post's, so the push goes out
 * once however often the event is processed.
 */
export function postPushesProcessor(broadcast: BroadcastPort): Processor {
  return {
    name: 'post-pushes',
    categories: [POSTS_CATEGORY],
    handles: ['postPublished'],
    async process(recorded) {
      const event = postCodec.parse(recorded);
      if (event.type !== 'postPublished' || !event.data.notify) return;
      const postId = postOfStream(recorded.streamName);
      await broadcast(
        `post:${postId}`,
        { kind: 'post', postId, channelId: event.data.channelId, preview: event.data.preview },
        null,
      );
    },
  };
}
