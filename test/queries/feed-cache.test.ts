import { describe, expect, it } from 'vitest';
import { asSeenBy, type SharedPost } from '../../src/queries/feed.ts';
import { serialisedAround } from '../../src/queries/feed-cache.ts';

const post: SharedPost = {
  id: '0195e7a4-0000-7000-8000-000000000001',
  channelId: '0195e7a4-0000-7000-8000-0000000000aa',
  // Text that looks like the place where the reader's reactions go must not confuse the split.
  text: 'quote " and "mine":[] and 😀',
  publishedAt: '2026-11-23T01:00:00.000Z',
  editedAt: '2026-11-23T01:05:00.000Z',
  attachments: [
    {
      id: '0195e7a4-0000-7000-8000-0000000000b1',
      kind: 'image',
      contentType: 'image/png',
      size: 1234,
      storageKey: 'posts/y/z',
      width: 10,
      height: 20,
    },
  ],
  buttons: [{ id: '0195e7a4-0000-7000-8000-0000000000c1', label: 'Go "now"', url: 'https://example.com' }],
  counts: { '👍': 2, mine: 1 },
  viewCount: 7,
  commentCount: 0,
  commentsEnabled: true,
};

const link = (media: { postId: string; id: string; storageKey: string }) =>
  `/files/posts/${media.postId}/${media.id}?t=signed-${media.storageKey}`;

describe('a feed post serialised around the reader', () => {
  it.each([[[]], [['👍']], [['👍', '🔥']]])('is the post as seen by a reader with %j', (mine) => {
    const { head, tail } = serialisedAround(post, link);
    const text = Buffer.concat([head, Buffer.from(JSON.stringify(mine)), tail]).toString('utf8');
    expect(text).toBe(JSON.stringify(asSeenBy(post, mine, link)));
  });

  it('puts the link of each attachment in place of where it is stored', () => {
    const seen = asSeenBy(post, [], link);
    expect(seen.attachments).toEqual([
      {
        id: '0195e7a4-0000-7000-8000-0000000000b1',
        kind: 'image',
        contentType: 'image/png',
        size: 1234,
        url: `/files/posts/${post.id}/0195e7a4-0000-7000-8000-0000000000b1?t=signed-posts/y/z`,
        width: 10,
        height: 20,
      },
    ]);
    expect(JSON.stringify(seen)).not.toContain('storageKey');
  });
});
