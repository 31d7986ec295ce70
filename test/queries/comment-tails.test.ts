import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCommentTails } from '../../src/queries/comment-tails.ts';
import { commentChanges } from '../../src/queries/comments.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { type CountedApp, type RunningApp, startCountedApp } from '../support/app.ts';
import { commentAs, userHeaders } from '../support/comments.ts';
import { useTestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { postThrough } from '../support/posts.ts';

const db = useTestDatabase();
let app: CountedApp;
let running: RunningApp;
let admin = '';
let channelId = '';

beforeAll(async () => {
  app = await startCountedApp(db, { support: { runInbox: false } });
  ({ running } = app);
  admin = await loginToken(running.url, await createTestAdmin(db.pool, 'owner'));
  const made = await adminCall(running.url, admin, 'POST', '/admin/channels', { title: 'Tails' });
  channelId = z.object({ id: z.string() }).parse(made.body).id;
}, 60_000);

afterAll(async () => {
  await app.close();
});

const services = () => running.app.services;
const newPost = () => postThrough(running.url, admin, channelId, ['publish'], { text: 'Thread' });
const comment = async (postId: string, text: string, author?: string) => {
  const posted = await commentAs(running.url, channelId, postId, text, author);
  expect(posted.status).toBe(201);
  return posted.id;
};
const threadStatements = (from: number) =>
  app.counter.statements.slice(from).filter((s) => s.includes('channel_comments'));

describe('comment tails', () => {
  it('answer every cursor as the table does, through new comments, hidden ones and a trimmed tail', async () => {
    const { pool, changes } = services();
    const postId = await newPost();
    const tails = createCommentTails(pool, changes, 3);
    // Every cursor from before the first change to past the last, with a page limit that cuts and one that does not.
    const agree = async () => {
      const all = await commentChanges(pool, postId, 0, 1_000);
      const last = all.at(-1)?.changeSeq ?? 0;
      for (let since = 0; since <= last + 1; since += 1) {
        for (const limit of [2, 100]) {
          const expected = await commentChanges(pool, postId, since, limit);
          expect(await tails.changesAfter({ channelId, postId, since }, limit), `since ${since}`).toEqual(
            expected,
          );
        }
      }
      return all;
    };
    expect(await agree()).toEqual([]);
    const first = await comment(postId, 'one');
    await comment(postId, 'two');
    expect((await agree()).map((r) => r.text)).toEqual(['one', 'two']);
    // Past three changes the tail drops the oldest; cursors before it read the table.
    await comment(postId, 'three');
    const fourth = await comment(postId, 'four', 'tail-author');
    await comment(postId, 'five');
    expect((await agree()).map((r) => r.text)).toEqual(['one', 'two', 'three', 'four', 'five']);
    // A change to an old comment moves it to the end of the change order: its author deletes it (a
    // change of the thread alone), then a moderator hides another (a change of the moderation log too).
    const deleted = await fetch(
      `${running.url}/api/channel/${channelId}/posts/${postId}/comments/${fourth}`,
      { method: 'DELETE', headers: userHeaders('tail-author') },
    );
    expect(deleted.status).toBe(204);
    await eventually(
      () => tails.changesAfter({ channelId, postId, since: 0 }, 100),
      (rows) => rows.at(-1)?.id === fourth,
    );
    expect((await agree()).map((r) => [r.text, r.status])).toEqual([
      ['one', 'visible'],
      ['two', 'visible'],
      ['three', 'visible'],
      ['five', 'visible'],
      ['four', 'deleted'],
    ]);
    const hidden = await adminCall(running.url, admin, 'POST', `/admin/comments/${first}/hide`, {
      reason: 'off topic',
    });
    expect(hidden.status).toBe(204);
    await eventually(
      () => tails.changesAfter({ channelId, postId, since: 0 }, 100),
      (rows) => rows.at(-1)?.id === first,
    );
    expect((await agree()).map((r) => [r.text, r.status])).toEqual([
      ['two', 'visible'],
      ['three', 'visible'],
      ['five', 'visible'],
      ['four', 'deleted'],
      ['one', 'hidden'],
    ]);
    await comment(postId, 'six');
    expect((await agree()).map((r) => r.text).slice(-2)).toEqual(['one', 'six']);
  });

  it('read a new comment once for every cursor that polls after it', async () => {
    const { pool, changes } = services();
    const postId = await newPost();
    for (const text of ['a', 'b', 'c', 'd']) await comment(postId, text);
    const tails = createCommentTails(pool, changes);
    const seqs = (await commentChanges(pool, postId, 0, 100)).map((r) => r.changeSeq);
    const cursors = [0, ...seqs];
    await tails.changesAfter({ channelId, postId, since: 0 }, 20);
    let from = app.counter.statements.length;
    for (const since of cursors) await tails.changesAfter({ channelId, postId, since }, 20);
    expect(threadStatements(from)).toEqual([]);

    await comment(postId, 'e');
    from = app.counter.statements.length;
    const answers = await Promise.all(
      cursors.map((since) => tails.changesAfter({ channelId, postId, since }, 20)),
    );
    expect(answers.map((rows) => rows.map((r) => r.text).join(''))).toEqual([
      'abcde',
      'bcde',
      'cde',
      'de',
      'e',
    ]);
    // One read after the tail's end, shared by every cursor.
    expect(threadStatements(from)).toHaveLength(1);
    expect(threadStatements(from)[0]).toMatch(/change_seq >/);
  });
});
