import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type CsatTarget, csatStream } from '../../src/events/csat.ts';
import { privacyStream } from '../../src/events/privacy.ts';
import { csatProjection, csatScope } from '../../src/projections/csat.ts';
import { tablesOf } from '../../src/projections/projection.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();

async function rate(userId: string, target: CsatTarget, rating: number, comment: string | null) {
  const ratingId = randomUUID();
  await log.append(csatStream(target), 'csatRated', {
    ratingId,
    userId,
    targetType: target.type,
    targetId: target.id,
    rating,
    comment,
    at: new Date().toISOString(),
  });
  return ratingId;
}

const rowsOf = (generation: number) => log.rows(csatProjection, generation, 'csat_ratings');

describe('the csat projection, when a user is erased', () => {
  it("keeps the user's ratings without their user or comment, and a rebuild ends the same", async () => {
    const live = 1;
    const commented = await rate('ann', { type: 'conversation', id: '101' }, 2, 'ann-comment: slow');
    const plain = await rate('ann', { type: 'ticket', id: '102' }, 4, null);
    const bobs = await rate('bob', { type: 'conversation', id: '103' }, 5, 'bob-comment: great');
    await log.follow(csatProjection, live);
    const bobBefore = (await rowsOf(live)).filter((r) => r.id === bobs);
    expect(bobBefore).toMatchObject([{ user_id: 'bob', comment: 'bob-comment: great' }]);

    await log.erase('ann');
    // The same host id after the erasure: a new user's rating.
    const later = await rate('ann', { type: 'conversation', id: '104' }, 3, 'ann-comment: again');
    await log.follow(csatProjection, live);

    const rows = await rowsOf(live);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(4);
    expect(byId.get(commented)).toMatchObject({ user_id: null, comment: null, rating: 2, target_id: '101' });
    expect(byId.get(plain)).toMatchObject({ user_id: null, comment: null, rating: 4, target_id: '102' });
    expect(byId.get(later)).toMatchObject({ user_id: 'ann', comment: 'ann-comment: again' });
    expect(rows.filter((r) => r.id === bobs)).toEqual(bobBefore);

    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(csatProjection, generation, batchSize);
      const rebuilt = await rowsOf(generation);
      expect(rebuilt, `batches of ${batchSize}`).toEqual(rows);
      // No row of the erased user: the only one under the host id is the new user's.
      expect(rebuilt.filter((r) => r.user_id === 'ann').map((r) => r.id)).toEqual([later]);
      expect(JSON.stringify(rebuilt)).not.toContain('ann-comment: slow');
    }
  });

  it("moves the erased user's scope, so a cached overlay of their ratings is read again", async () => {
    await log.erase('cyd');
    const [erasure] = await log.store.readStream(privacyStream('cyd'));
    if (!erasure) throw new Error('no erasure recorded');
    const changed = await csatProjection.changes?.(log.pool, [erasure], tablesOf(csatProjection, 1));
    expect(changed).toEqual([csatScope('cyd')]);
  });
});
