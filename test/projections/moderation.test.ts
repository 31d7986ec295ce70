import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commentStream } from '../../src/events/comments.ts';
import { moderationStream } from '../../src/events/moderation.ts';
import { privacyStream } from '../../src/events/privacy.ts';
import { moderationEventSchema } from '../../src/http/views/admin/moderation.ts';
import { moderationProjection } from '../../src/projections/moderation.ts';
import { pointViewsAt, tablesOf } from '../../src/projections/projection.ts';
import { scopes } from '../../src/projections/scopes.ts';
import { activeBans, isCommentModerator, moderationEvents } from '../../src/queries/moderation.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();
const now = () => new Date().toISOString();
const admin = { type: 'admin' as const, id: randomUUID() };
const moderator = (id: string) => ({ type: 'moderator' as const, id });

const tableNames = [
  'comment_bans',
  'comment_moderators',
  'comment_moderation_events',
  'moderated_comments',
] as const;
const rowsOf = (generation: number, table: (typeof tableNames)[number]) =>
  log.rows(moderationProjection, generation, table);
const allRows = async (generation: number) =>
  Object.fromEntries(
    await Promise.all(tableNames.map(async (t) => [t, await rowsOf(generation, t)] as const)),
  );

describe('the moderation projection, when a user is erased', () => {
  it("forgets the user's bans and roles, detaches the history from them, and a rebuild ends the same", async () => {
    const live = 1;
    const channelId = randomUUID();
    const postId = randomUUID();
    const channel = (type: string, data: Record<string, unknown>) =>
      log.append(moderationStream(channelId), type, { ...data, at: now() });
    const comment = (id: string, type: string, data: Record<string, unknown>) =>
      log.append(commentStream(id), type, { ...data, at: now() });
    const rejected = (userId: string, snippet: string) =>
      channel('commentRejected', { postId, userId, kind: 'link', snippet, hash: 'ab'.repeat(32) });

    await channel('moderatorAssigned', { userId: 'ann', by: admin });
    await channel('moderatorAssigned', { userId: 'bob', by: admin });
    await channel('userBanned', {
      userId: 'ann',
      until: null,
      reason: 'ann-ban-reason',
      by: moderator('bob'),
    });
    await channel('userBanned', { userId: 'cyd', until: null, reason: 'cyd spams', by: moderator('bob') });
    await rejected('ann', 'ann-snippet');
    await rejected('cyd', 'cyd-snippet');
    const [anns, bobs] = [randomUUID(), randomUUID()];
    await comment(anns, 'commentPosted', { channelId, postId, authorId: 'ann', text: 'ann-text' });
    await comment(bobs, 'commentPosted', { channelId, postId, authorId: 'bob', text: 'bob-text' });
    await comment(anns, 'commentHidden', { by: moderator('bob'), reason: 'off-topic' });
    await comment(bobs, 'commentHidden', { by: moderator('ann'), reason: 'ann-as-moderator' });
    await comment(anns, 'commentReported', {
      reportId: randomUUID(),
      reporterId: 'cyd',
      reason: 'spam',
      note: 'cyd-note',
    });
    await comment(bobs, 'commentReported', {
      reportId: randomUUID(),
      reporterId: 'ann',
      reason: 'scam',
      note: 'ann-note',
    });
    await log.follow(moderationProjection, live);

    await log.erase('ann');
    await log.follow(moderationProjection, live);

    expect((await rowsOf(live, 'comment_bans')).map((b) => [b.user_id, b.reason])).toEqual([
      ['cyd', 'cyd spams'],
    ]);
    expect((await rowsOf(live, 'comment_moderators')).map((m) => m.user_id)).toEqual(['bob']);
    const authors = new Map((await rowsOf(live, 'moderated_comments')).map((c) => [c.id, c.author_id]));
    expect([authors.get(anns), authors.get(bobs)]).toEqual([null, 'bob']);

    const history = await rowsOf(live, 'comment_moderation_events');
    expect(
      history.filter((h) => h.user_id === 'ann' || (h.actor_type === 'user' && h.actor_id === 'ann')),
    ).toEqual([]);
    const find = (action: string, where: Record<string, unknown>) =>
      history.filter((h) => h.action === action && Object.entries(where).every(([k, v]) => h[k] === v));
    expect(find('user_banned', { user_id: null })).toMatchObject([{ reason: null, detail: { until: null } }]);
    expect(find('user_banned', { user_id: 'cyd' })).toMatchObject([{ reason: 'cyd spams' }]);
    expect(find('moderator_assigned', { user_id: null })).toHaveLength(1);
    expect(find('comment_rejected', { user_id: null })).toMatchObject([
      { actor_type: 'user', actor_id: null, detail: { kind: 'link', hash: 'ab'.repeat(32) } },
    ]);
    expect(find('comment_rejected', { user_id: null })[0]?.detail).not.toHaveProperty('snippet');
    expect(find('comment_rejected', { user_id: 'cyd' })).toMatchObject([
      { detail: { snippet: 'cyd-snippet' } },
    ]);
    // Moderators' reasons are their record: they stay, whoever the comment was by or whoever moderated.
    expect(find('comment_hidden', { comment_id: anns })).toMatchObject([
      { user_id: null, actor_id: 'bob', reason: 'off-topic' },
    ]);
    expect(find('comment_hidden', { comment_id: bobs })).toMatchObject([
      { user_id: 'bob', actor_type: 'moderator', actor_id: 'ann', reason: 'ann-as-moderator' },
    ]);
    expect(find('comment_reported', { comment_id: bobs })).toMatchObject([
      { user_id: 'bob', actor_id: null, reason: 'scam' },
    ]);
    expect(find('comment_reported', { comment_id: bobs })[0]?.detail).not.toHaveProperty('note');
    expect(find('comment_reported', { comment_id: anns })).toMatchObject([
      { user_id: null, actor_id: 'cyd', detail: { note: 'cyd-note' } },
    ]);
    expect(JSON.stringify(await allRows(live))).not.toMatch(/ann-(ban-reason|snippet|note)/);

    // The batch moves the channel's moderators, for the caches of what clients poll.
    const erasure = await log.store.readStream(privacyStream('ann'));
    const tables = tablesOf(moderationProjection, live);
    expect(await moderationProjection.changes?.(log.pool, erasure, tables)).toEqual([
      scopes.moderators(channelId),
    ]);

    // What the service reads: the same host id is neither banned nor a moderator, and the history parses.
    await pointViewsAt(log.pool, moderationProjection, live);
    expect(await isCommentModerator(log.pool, channelId, 'ann')).toBe(false);
    expect((await activeBans(log.pool, channelId)).map((b) => b.userId)).toEqual(['cyd']);
    const events = await moderationEvents(log.pool, { channelId, limit: 100 });
    expect(events).toHaveLength(history.length);
    for (const event of events) expect(moderationEventSchema.safeParse(event).success).toBe(true);

    // Banned again after the erasure: a new user's ban, with its reason.
    await channel('userBanned', { userId: 'ann', until: null, reason: 'new-ann', by: moderator('bob') });
    await log.follow(moderationProjection, live);
    expect((await activeBans(log.pool, channelId)).map((b) => [b.userId, b.reason])).toEqual([
      ['ann', 'new-ann'],
      ['cyd', 'cyd spams'],
    ]);
    const rows = await allRows(live);

    const [banned] = (await log.store.readStream(moderationStream(channelId))).filter(
      (e) => e.type === 'userBanned',
    );
    expect(banned?.data).toMatchObject({ userId: 'ann', reason: null });
    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(moderationProjection, generation, batchSize);
      expect(await allRows(generation), `batches of ${batchSize}`).toEqual(rows);
    }
  });
});
