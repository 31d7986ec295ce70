import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { viewsStream } from '../../src/events/interactions.ts';
import { postStream } from '../../src/events/posts.ts';
import { postsProjection } from '../../src/projections/posts.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();
const channelId = randomUUID();
const [first, second] = [randomUUID(), randomUUID()];

async function publish(postId: string): Promise<void> {
  const at = new Date().toISOString();
  await log.append(postStream(postId), 'postDrafted', {
    channelId,
    text: 'hello',
    buttons: [],
    commentsEnabled: true,
    at,
  });
  await log.append(postStream(postId), 'postPublished', {
    channelId,
    notify: false,
    preview: 'hello',
    by: 'admin',
    at,
  });
}

const view = (userId: string, postIds: string[]) =>
  log.append(viewsStream(userId), 'postsViewed', { channelId, postIds, at: new Date().toISOString() });

const viewsOf = (generation: number) => log.rows(postsProjection, generation, 'post_views');
const countsOf = async (generation: number): Promise<Record<string, unknown>> => {
  const posts = await log.rows(postsProjection, generation, 'channel_posts');
  return Object.fromEntries(posts.map((r): [string, unknown] => [String(r.id), r.view_count]));
};

describe('the posts projection, when a user is erased', () => {
  it("deletes the user's views and keeps the posts' view counts, and a rebuild ends the same", async () => {
    const live = 1;
    await publish(first);
    await publish(second);
    await view('ann', [first, second]);
    await view('bob', [first]);
    await log.follow(postsProjection, live);
    const bobBefore = (await viewsOf(live)).filter((r) => r.user_id === 'bob');
    expect(bobBefore).toHaveLength(1);

    await log.erase('ann');
    await log.follow(postsProjection, live);
    const views = await viewsOf(live);
    expect(views.filter((r) => r.user_id === 'ann')).toEqual([]);
    expect(views.filter((r) => r.user_id === 'bob')).toEqual(bobBefore);
    expect(await countsOf(live)).toEqual({ [first]: 2, [second]: 1 });

    // The same host id after the erasure is a new user, whose view counts.
    await view('ann', [first]);
    await log.follow(postsProjection, live);
    expect(await countsOf(live)).toEqual({ [first]: 3, [second]: 1 });
    const tables = ['channel_posts', 'post_views'];
    const rows = await Promise.all(tables.map((table) => log.rows(postsProjection, live, table)));

    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(postsProjection, generation, batchSize);
      const rebuilt = await Promise.all(tables.map((table) => log.rows(postsProjection, generation, table)));
      expect(rebuilt, `batches of ${batchSize}`).toEqual(rows);
    }
  });
});
