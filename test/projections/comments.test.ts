import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handleComment } from '../../src/commands/comments.ts';
import type { CommandContext } from '../../src/commands/handler.ts';
import { commentStream } from '../../src/events/comments.ts';
import { privacyStream } from '../../src/events/privacy.ts';
import { commentSchema, commentView } from '../../src/http/views/api/comments.ts';
import { DomainError } from '../../src/lib/domain-error.ts';
import { commentsProjection } from '../../src/projections/comments.ts';
import { moderationProjection } from '../../src/projections/moderation.ts';
import { createGeneration, pointViewsAt, tablesOf } from '../../src/projections/projection.ts';
import { scopes } from '../../src/projections/scopes.ts';
import { commentChanges, findComment } from '../../src/queries/comments.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();
const channelId = randomUUID();
const mia = { type: 'moderator' as const, id: 'mia' };
const now = () => new Date().toISOString();
const image = {
  storageKey: `comments/${randomUUID()}`,
  contentType: 'image/png',
  size: 100,
  width: 4,
  height: 3,
};

async function post(userId: string, text: string, postId: string, withImage = false): Promise<string> {
  const id = randomUUID();
  await log.append(commentStream(id), 'commentPosted', {
    channelId,
    postId,
    authorId: userId,
    text,
    ...(withImage ? { image } : {}),
    at: now(),
  });
  return id;
}

const report = (commentId: string, reporterId: string, note: string) =>
  log.append(commentStream(commentId), 'commentReported', {
    reportId: randomUUID(),
    reporterId,
    reason: 'abuse',
    note,
    at: now(),
  });

const context = (userId: string): CommandContext => ({
  actor: { type: 'user', id: userId },
  commandId: randomUUID(),
  correlationId: randomUUID(),
});

const tableNames = [
  'channel_comments',
  'comment_attachments',
  'comment_reports',
  'post_comment_counts',
] as const;
const rowsOf = (generation: number, table: (typeof tableNames)[number]) =>
  log.rows(commentsProjection, generation, table);
const allRows = async (generation: number) => {
  const [channel_comments = [], comment_attachments = [], comment_reports = [], post_comment_counts = []] =
    await Promise.all(tableNames.map((t) => rowsOf(generation, t)));
  return { channel_comments, comment_attachments, comment_reports, post_comment_counts };
};

describe('the comments projection, when a user is erased', () => {
  it("detaches the user's comments and reports, keeps statuses and counts, and a rebuild ends the same", async () => {
    const live = 1;
    const [postId, otherPost] = [randomUUID(), randomUUID()];
    const hidden = await post('ann', 'ann-text-1', postId, true);
    const plain = await post('ann', 'ann-text-2', otherPost);
    const bobs = await post('bob', 'bob-text', postId, true);
    await report(bobs, 'ann', 'ann-note');
    await report(hidden, 'bob', 'bob-note');
    await log.append(commentStream(hidden), 'commentHidden', { by: mia, reason: 'off-topic', at: now() });
    await log.follow(commentsProjection, live);
    const before = await allRows(live);
    const head = Math.max(...before.channel_comments.map((r) => Number(r.change_seq)));

    await log.erase('ann');
    await log.follow(commentsProjection, live);

    const comments = new Map((await rowsOf(live, 'channel_comments')).map((r) => [r.id, r]));
    expect(comments.get(hidden)).toMatchObject({ author_id: null, text: null, status: 'hidden' });
    expect(comments.get(plain)).toMatchObject({ author_id: null, text: null, status: 'visible' });
    // Renumbered, so open threads' polls hear of it.
    expect(Number(comments.get(hidden)?.change_seq)).toBeGreaterThan(head);
    expect(comments.get(bobs)).toEqual(before.channel_comments.find((r) => r.id === bobs));
    expect((await rowsOf(live, 'comment_attachments')).map((a) => a.comment_id)).toEqual([bobs]);
    const reports = await rowsOf(live, 'comment_reports');
    expect(reports.find((r) => r.comment_id === bobs)).toMatchObject({
      reporter_id: null,
      note: null,
      reason: 'abuse',
      status: 'open',
    });
    expect(reports.find((r) => r.comment_id === hidden)).toMatchObject({
      reporter_id: 'bob',
      note: 'bob-note',
    });
    expect(await rowsOf(live, 'post_comment_counts')).toEqual(before.post_comment_counts);
    expect(JSON.stringify(await allRows(live))).not.toMatch(/ann-(text|note)/);

    // The batch names the threads the erasure changed, for the caches of what clients poll.
    const erasure = await log.store.readStream(privacyStream('ann'));
    const changed = await commentsProjection.changes?.(log.pool, erasure, tablesOf(commentsProjection, live));
    expect(new Set(changed)).toEqual(new Set([scopes.thread(postId), scopes.thread(otherPost)]));

    // What clients read of it: its place in the thread, and nothing of its author.
    await createGeneration(log.pool, moderationProjection, 1);
    await pointViewsAt(log.pool, moderationProjection, 1);
    await pointViewsAt(log.pool, commentsProjection, live);
    const polled = await commentChanges(log.pool, otherPost, 0, 10);
    const view = polled.map((row) => commentView(row, 'ann', () => 'https://media.example/x'));
    expect(view).toEqual([
      {
        id: plain,
        postId: otherPost,
        author: { userId: '', isModerator: false },
        text: '',
        createdAt: polled[0]?.createdAt,
        status: 'visible',
        mine: false,
        erased: true,
      },
    ]);
    expect(commentSchema.safeParse(view[0]).success).toBe(true);

    // After the erasure the same host id is a new user; a moderator may still show the erased comment.
    const later = await post('ann', 'ann-text-after', postId);
    await log.append(commentStream(hidden), 'commentUnhidden', { by: mia, at: now() });
    await log.follow(commentsProjection, live);
    expect(await findComment(log.pool, later)).toMatchObject({ authorId: 'ann', text: 'ann-text-after' });
    expect(await findComment(log.pool, hidden)).toMatchObject({
      authorId: null,
      text: null,
      status: 'visible',
    });
    const rows = await allRows(live);

    // What a rebuild reads once the key is gone: the erased fields come back null.
    const [posted] = await log.store.readStream(commentStream(hidden));
    expect(posted?.data).toMatchObject({ authorId: 'ann', text: null });
    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(commentsProjection, generation, batchSize);
      expect(await allRows(generation), `batches of ${batchSize}`).toEqual(rows);
    }
  });

  it('numbers the comments of users erased back to back as one erasure after the other', async () => {
    const postId = randomUUID();
    for (const user of ['eve', 'fay', 'eve', 'fay']) await post(user, `${user}-text`, postId);
    await log.erase('eve');
    await log.erase('fay');
    // Both erasures in one batch here, one a batch in the rebuild.
    await log.follow(commentsProjection, 4);
    await log.rebuild(commentsProjection, 5, 1);
    const erased = (await rowsOf(4, 'channel_comments')).filter((r) => r.post_id === postId);
    expect(erased.map((r) => r.author_id)).toEqual([null, null, null, null]);
    expect(await allRows(5)).toEqual(await allRows(4));
  });

  it('refuses the delete of an erased comment to its former author, and not to others', async () => {
    const postId = randomUUID();
    const cyds = await post('cyd', 'cyd-text', postId);
    const dees = await post('dee', 'dee-text', postId);
    await log.erase('cyd');

    const deleteOwn = (userId: string, commentId: string) =>
      handleComment(log.store, commentId, { type: 'deleteOwn', userId, at: now() }, context(userId));
    const refusal = await deleteOwn('cyd', cyds).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).kind).toBe('forbidden');
    expect((await log.store.readStream(commentStream(cyds))).map((e) => e.type)).toEqual(['commentPosted']);
    const { events } = await deleteOwn('dee', dees);
    expect(events.map((e) => e.type)).toEqual(['commentDeletedByAuthor']);
  });
});
