import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clicksStream, readsStream } from '../../src/events/interactions.ts';
import { clicksProjection, readsProjection } from '../../src/projections/interactions.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();
const channelId = randomUUID();
const postId = randomUUID();
const buttonId = randomUUID();

const click = (userId: string) =>
  log.append(clicksStream(userId), 'buttonClicked', {
    channelId,
    postId,
    buttonId,
    at: new Date().toISOString(),
  });
const read = (userId: string, channel: string, publishedAt: string) =>
  log.append(readsStream(userId), 'channelRead', {
    channelId: channel,
    lastReadPostId: randomUUID(),
    lastReadPublishedAt: publishedAt,
    at: new Date().toISOString(),
  });

describe('the clicks projection, when a user is erased', () => {
  const rowsOf = (generation: number) => log.rows(clicksProjection, generation, 'post_button_clicks');

  it("keeps the user's clicks without their user, and a rebuild ends the same", async () => {
    const live = 1;
    await click('ann');
    await click('ann');
    await click('bob');
    await log.follow(clicksProjection, live);
    const bobBefore = (await rowsOf(live)).filter((r) => r.user_id === 'bob');
    expect(bobBefore).toHaveLength(1);

    await log.erase('ann');
    await click('ann');
    await log.follow(clicksProjection, live);
    const rows = await rowsOf(live);
    // Every click still counts; only the new user's click is under the host id.
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r.user_id).sort()).toEqual(['ann', 'bob', null, null]);
    expect(rows.filter((r) => r.user_id === 'bob')).toEqual(bobBefore);

    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(clicksProjection, generation, batchSize);
      expect(await rowsOf(generation), `batches of ${batchSize}`).toEqual(rows);
    }
  });
});

describe('the reads projection, when a user is erased', () => {
  const rowsOf = (generation: number) => log.rows(readsProjection, generation, 'channel_reads');
  const [one, two] = [randomUUID(), randomUUID()];

  it("deletes the user's read markers, and a rebuild ends the same", async () => {
    const live = 1;
    await read('cyd', one, '2026-01-01T10:00:00.000Z');
    await read('cyd', two, '2026-01-01T11:00:00.000Z');
    await read('dee', one, '2026-01-01T12:00:00.000Z');
    await log.follow(readsProjection, live);
    const deeBefore = (await rowsOf(live)).filter((r) => r.user_id === 'dee');
    expect(deeBefore).toHaveLength(1);

    await log.erase('cyd');
    await log.follow(readsProjection, live);
    expect((await rowsOf(live)).filter((r) => r.user_id === 'cyd')).toEqual([]);

    // A new user under the host id starts from nothing: an older marker than the erased one's is kept.
    await read('cyd', two, '2026-01-01T09:00:00.000Z');
    await log.follow(readsProjection, live);
    const rows = await rowsOf(live);
    expect(rows.filter((r) => r.user_id === 'cyd')).toMatchObject([
      { channel_id: two, last_read_published_at: '2026-01-01T09:00:00+00:00' },
    ]);
    expect(rows.filter((r) => r.user_id === 'dee')).toEqual(deeBefore);

    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(readsProjection, generation, batchSize);
      expect(await rowsOf(generation), `batches of ${batchSize}`).toEqual(rows);
    }
  });
});
