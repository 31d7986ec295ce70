import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { reactionsStream } from '../../src/events/reactions.ts';
import { reactionsProjection } from '../../src/projections/reactions.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();
const channelId = randomUUID();
const [first, second] = [randomUUID(), randomUUID()];

const react = (userId: string, type: 'reactionAdded' | 'reactionRemoved', postId: string, emoji: string) =>
  log.append(reactionsStream(userId), type, { channelId, postId, emoji, at: new Date().toISOString() });

const reactionsOf = (generation: number) => log.rows(reactionsProjection, generation, 'post_reactions');
const countsOf = (generation: number) => log.rows(reactionsProjection, generation, 'post_reaction_counts');
const count = (rows: readonly Record<string, unknown>[], postId: string, emoji: string) =>
  rows.find((r) => r.post_id === postId && r.emoji === emoji)?.count;

describe('the reactions projection, when a user is erased', () => {
  it("deletes the user's reactions and keeps the counts, and a rebuild ends the same", async () => {
    const live = 1;
    await react('ann', 'reactionAdded', first, '👍');
    await react('ann', 'reactionAdded', first, '❤️');
    await react('ann', 'reactionAdded', second, '👍');
    await react('ann', 'reactionRemoved', first, '❤️');
    await react('bob', 'reactionAdded', first, '👍');
    await log.follow(reactionsProjection, live);
    const bobBefore = (await reactionsOf(live)).filter((r) => r.user_id === 'bob');
    expect(bobBefore).toHaveLength(1);

    await log.erase('ann');
    await log.follow(reactionsProjection, live);
    const reactions = await reactionsOf(live);
    expect(reactions.filter((r) => r.user_id === 'ann')).toEqual([]);
    expect(reactions.filter((r) => r.user_id === 'bob')).toEqual(bobBefore);
    const counts = await countsOf(live);
    expect([count(counts, first, '👍'), count(counts, first, '❤️'), count(counts, second, '👍')]).toEqual([
      2, 0, 1,
    ]);

    // The same host id after the erasure is a new user: their reaction counts once more, and removing
    // one the erased user gave (no row now) takes nothing off the count.
    await react('ann', 'reactionAdded', first, '👍');
    await react('ann', 'reactionRemoved', second, '👍');
    await log.follow(reactionsProjection, live);
    const after = await countsOf(live);
    expect([count(after, first, '👍'), count(after, second, '👍')]).toEqual([3, 1]);
    const rows = { reactions: await reactionsOf(live), counts: after };
    expect(rows.reactions.filter((r) => r.user_id === 'ann').map((r) => r.post_id)).toEqual([first]);

    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(reactionsProjection, generation, batchSize);
      expect(
        { reactions: await reactionsOf(generation), counts: await countsOf(generation) },
        `batches of ${batchSize}`,
      ).toEqual(rows);
    }
  });
});
